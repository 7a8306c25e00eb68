-- an inner join of two aggregations (both updating) (result: final)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT a.k, a.cnt, b.names FROM (SELECT k, COUNT(*) AS cnt FROM events GROUP BY k) a JOIN (SELECT k, COUNT(name) AS names FROM dims GROUP BY k) b ON a.k = b.k;
