-- UNNEST over a GROUP BY's updating result: each -U/+U expands into rows of its kind
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, x FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM events GROUP BY k) s CROSS JOIN UNNEST(ARRAY[s.c, s.sv]) AS u(x) WHERE x IS NOT NULL;
