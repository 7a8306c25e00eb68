-- OVER ROWS BETWEEN 1 PRECEDING AND CURRENT ROW over rows of equal time, without PARTITION BY
CREATE TABLE ticks (
  k STRING, v BIGINT, p BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/ticks', 'format' = 'json');

SELECT k, v, ts, SUM(v) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), MAX(v) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ticks;
