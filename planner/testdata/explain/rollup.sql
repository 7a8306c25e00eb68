CREATE TABLE src (a STRING, b STRING, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a, b, SUM(v), GROUPING(a, b) FROM src GROUP BY ROLLUP(a, b);
