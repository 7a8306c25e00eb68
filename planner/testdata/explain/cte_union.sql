CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
WITH counts AS (SELECT k, COUNT(*) AS c FROM src GROUP BY k), big (kk, cc) AS (SELECT k, c FROM counts WHERE c > 1)
SELECT kk, cc FROM big;
SELECT k FROM src UNION SELECT k FROM src;
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT y FROM b;
