-- a cascading window aggregation: GROUP BY the window_start and window_end (renamed) of a HOP window aggregation is itself a window aggregation (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT ws, we, MAX(n) AS maxn, SUM(total) AS total, COUNT(*) AS keys FROM (SELECT k, COUNT(*) AS n, SUM(v) AS total, window_start AS ws, window_end AS we FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) GROUP BY ws, we;
