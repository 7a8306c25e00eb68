CREATE TABLE orders (id BIGINT, tags ARRAY<STRING>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out (id BIGINT, t STRING, pos INT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT o.id, t, pos FROM orders o CROSS JOIN UNNEST(o.tags) WITH ORDINALITY AS u (t, pos) WHERE pos > 1 AND o.id > 0;
SELECT o.id, i.sku, i.qty * 2 FROM orders o LEFT JOIN UNNEST(o.items) AS i ON TRUE;
SELECT id, k, v FROM orders, UNNEST(attrs) AS m (k, v);
SELECT t, COUNT(*) FROM orders CROSS JOIN UNNEST(tags) AS u (t) GROUP BY t;
SELECT k, x FROM (SELECT CAST(id AS STRING) AS k, COUNT(*) AS c FROM orders GROUP BY id) s CROSS JOIN UNNEST(ARRAY[s.c, s.c + 1]) AS u (x);
SELECT o.id, t FROM orders o LEFT JOIN UNNEST(o.tags) AS u (t) ON t <> 'x' AND o.id > 1;
