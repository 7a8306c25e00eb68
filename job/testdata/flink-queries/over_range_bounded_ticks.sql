-- OVER RANGE BETWEEN INTERVAL '2' SECOND PRECEDING over rows of equal time (order: any: the rows of one watermark have no order)
CREATE TABLE ticks (
  k STRING, v BIGINT, p BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/ticks', 'format' = 'json');

SELECT k, v, ts, SUM(v) OVER w, MAX(v) OVER w, MIN(v) OVER w FROM ticks WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW);
