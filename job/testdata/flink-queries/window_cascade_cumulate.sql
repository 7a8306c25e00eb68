-- a cascading window aggregation over CUMULATE windows grouped by window_start, window_end and window_time (renamed), through a filter and the inner HAVING (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT ws, we, wt, MAX(n) AS maxn, COUNT(*) AS keys FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we, window_time AS wt FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY k, window_start, window_end, window_time HAVING SUM(v) > 2) WHERE k <> 'c' GROUP BY ws, we, wt;
