-- OVER ROWS over processing time
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3), pt AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), MAX(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM events;
