-- OVER with a FOLLOWING bound
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM events;
