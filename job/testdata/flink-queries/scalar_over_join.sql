-- scalar subqueries over a join, two in one query (result: final)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT e.k, e.v, d.name, (SELECT MIN(lvl) FROM dims) AS lo FROM events e JOIN dims d ON e.k = d.k WHERE e.v > (SELECT AVG(v) FROM events) AND d.lvl < (SELECT MAX(lvl) FROM dims);
