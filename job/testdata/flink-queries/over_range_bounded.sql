-- OVER RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND CURRENT ROW over event time (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, ts, SUM(v) OVER w, COUNT(*) OVER w, MIN(d) OVER w, MAX(d) OVER w FROM events WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND CURRENT ROW);
