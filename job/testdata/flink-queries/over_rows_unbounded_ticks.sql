-- OVER ROWS UNBOUNDED PRECEDING over rows of equal time (order: any: the rows of one watermark have no order)
CREATE TABLE ticks (
  k STRING, v BIGINT, p BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/ticks', 'format' = 'json');

SELECT k, v, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING), LAST_VALUE(v) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING), FIRST_VALUE(v) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) FROM ticks;
