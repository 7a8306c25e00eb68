-- a window Top-N whose ROW_NUMBER() is in the window aggregation's own SELECT (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT window_start, k, total FROM (SELECT window_start, window_end, k, SUM(v) AS total, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY SUM(v) DESC, k) AS rn FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k) WHERE rn <= 2;
