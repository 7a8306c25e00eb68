-- DISTINCT aggregates in the legacy SESSION group window (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, SESSION_START(ts, INTERVAL '3' SECOND), SESSION_END(ts, INTERVAL '3' SECOND), COUNT(DISTINCT s), MAX(DISTINCT v), AVG(DISTINCT m) FROM events GROUP BY k, SESSION(ts, INTERVAL '3' SECOND);
