-- A window table function read as a table: not over an input that has window columns
-- already, not SESSION (whose windows need every row of a key), and over a time attribute.
CREATE TABLE events (k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector' = 'datagen');
CREATE VIEW fives AS SELECT k, v, window_time FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND));
SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE fives, DESCRIPTOR(window_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
SELECT * FROM TABLE(SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND));
SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(v), INTERVAL '5' SECOND));
