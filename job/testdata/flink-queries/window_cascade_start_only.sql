-- GROUP BY the window_start of a window aggregation without its window_end is a group aggregation, updating, as Flink plans it (result: final)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT ws, MAX(n) AS maxn FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) GROUP BY ws;
