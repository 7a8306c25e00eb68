-- beyond Flink (its planner fails on it): a TUMBLE window table function over the window_time of another one read as a table (window_time is a time attribute) (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE VIEW fives AS SELECT k, v, window_time AS wt FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND));

SELECT window_start, window_end, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE fives, DESCRIPTOR(wt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
