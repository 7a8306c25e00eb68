-- ORDER BY the positions of an aggregation's unnamed columns ... LIMIT
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, COUNT(*) FROM events GROUP BY k ORDER BY 2 DESC, 1 LIMIT 2;
