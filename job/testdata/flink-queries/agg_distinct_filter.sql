-- DISTINCT and FILTER aggregates
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, COUNT(DISTINCT s), COUNT(*) FILTER (WHERE v > 3), SUM(v) FILTER (WHERE s = 'x'), COUNT(DISTINCT v) FILTER (WHERE d > 1.0), SUM(DISTINCT v) FROM events GROUP BY k;
