-- retractions through two aggregation levels
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT cnt, COUNT(*) AS keys, SUM(total) FROM (SELECT k, COUNT(*) AS cnt, SUM(v) AS total FROM events GROUP BY k) GROUP BY cnt;
