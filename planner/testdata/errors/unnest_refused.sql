CREATE TABLE orders (id BIGINT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>) WITH ('connector' = 'datagen');
SELECT id, t, n FROM orders CROSS JOIN UNNEST(tags, nums) AS u (t, n);
SELECT id, sku, pos FROM orders CROSS JOIN UNNEST(items) WITH ORDINALITY AS i (sku, qty, pos);
SELECT id, t FROM orders LEFT JOIN UNNEST(tags) AS u (t) ON t;
SELECT id, t FROM orders RIGHT JOIN UNNEST(tags) AS u (t) ON TRUE;
SELECT id, x FROM orders CROSS JOIN UNNEST(id) AS u (x);
SELECT id, a, b FROM orders CROSS JOIN UNNEST(tags) AS u (a, b);
