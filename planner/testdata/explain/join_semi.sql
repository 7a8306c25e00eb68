-- Subqueries of WHERE as semi and anti joins: IN, a correlated EXISTS
-- with a condition, NOT EXISTS, NOT IN over nullable columns (NULL makes
-- it unknown: no key, one task), IN over an aggregating subquery, and a
-- window semi join of two window table functions.
CREATE TABLE orders (id BIGINT, customer BIGINT, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE vip (customer BIGINT NOT NULL, since TIMESTAMP(3), ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE out_ids (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_ids SELECT id FROM orders WHERE customer IN (SELECT customer FROM vip WHERE since IS NOT NULL);
INSERT INTO out_ids SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM vip v WHERE v.customer = o.customer AND v.since < o.ts) AND o.amount > 0;
INSERT INTO out_ids SELECT id FROM orders o WHERE NOT EXISTS (SELECT * FROM vip WHERE vip.customer = o.customer);
INSERT INTO out_ids SELECT id FROM orders WHERE customer NOT IN (SELECT customer FROM vip);
INSERT INTO out_ids SELECT id FROM orders WHERE customer IN (SELECT customer FROM orders GROUP BY customer HAVING SUM(amount) > 100);
INSERT INTO out_ids SELECT o.id FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) o
WHERE o.customer IN (SELECT v.customer FROM TABLE(TUMBLE(TABLE vip, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) v WHERE v.window_start = o.window_start AND v.window_end = o.window_end);
