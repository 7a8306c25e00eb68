-- Joins of changelogs: a LEFT JOIN into an upsert sink (its rows are
-- retracted: the materializer keeps the sink right), a join of two GROUP
-- BY results (the join asks them for UPDATE_BEFORE rows), a join of an
-- upsert table (read through ChangelogNormalize), and a join whose input
-- is a UNION ALL.
CREATE TABLE orders (id BIGINT, customer BIGINT, amount BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE returns (id BIGINT, customer BIGINT, amount BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE customers (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'customers', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE by_order (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'by-order', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE printed (customer BIGINT, bought BIGINT, returned BIGINT) WITH ('connector' = 'print');
INSERT INTO by_order
SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON o.customer = c.id;
INSERT INTO printed
SELECT b.customer, b.total, r.total
FROM (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) b
JOIN (SELECT customer, SUM(amount) AS total FROM returns GROUP BY customer) r ON b.customer = r.customer;
INSERT INTO printed
SELECT m.customer, m.amount, 0
FROM (SELECT customer, amount FROM orders UNION ALL SELECT customer, -amount FROM returns) m
JOIN customers c ON m.customer = c.id
WHERE c.name <> '';
-- The right input's join key holds its unique key: each left row has at
-- most one match, and the left input's key identifies the output rows,
-- which go into the upsert sink without a materializer.
INSERT INTO by_order
SELECT c.id, c.name
FROM customers c LEFT JOIN (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) t ON c.id = t.customer
WHERE c.name IS NOT NULL;
