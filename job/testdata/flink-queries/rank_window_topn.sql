-- window Top-N over a window aggregation (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT k, window_start, window_end, total, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC, k) AS rn FROM (SELECT k, window_start, window_end, SUM(v) AS total FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end)) WHERE rn <= 2;
