-- DISTINCT aggregates in the legacy group windows TUMBLE and HOP (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), COUNT(DISTINCT s), SUM(DISTINCT v), COUNT(*) FROM events GROUP BY k, HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND);
