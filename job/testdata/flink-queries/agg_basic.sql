-- GROUP BY with every aggregate over every type, NULLs included
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, COUNT(*), COUNT(v), SUM(v), AVG(v), MIN(v), MAX(v), SUM(d), AVG(d), SUM(m), AVG(m), MIN(s), MAX(s), MIN(ts), MAX(ts) FROM events GROUP BY k;
