-- Regular joins: an inner join whose key needs a cast (INT and BIGINT),
-- a left join with a residual condition and a filter pushed to the padded
-- input, and a comma join whose key is in WHERE.
CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE customers (id BIGINT, name STRING, country STRING) WITH ('connector' = 'datagen');
CREATE TABLE enriched (id BIGINT, name STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO enriched
SELECT o.id, c.name, o.amount, o.ts
FROM orders AS o JOIN customers AS c ON o.customer = c.id
WHERE o.amount > 10;
INSERT INTO enriched
SELECT /*+ STATE_TTL('o' = '1d') */ o.id, c.name, o.amount, o.ts
FROM orders o LEFT JOIN customers c ON o.customer = c.id AND c.country = 'NL' AND o.amount > CHAR_LENGTH(c.name);
INSERT INTO enriched
SELECT o.id, c.name, o.amount, o.ts
FROM orders o, customers c
WHERE o.customer = c.id AND c.country <> 'NL';
-- A qualified star takes one input's columns; a self-join reads the table
-- twice; a join without an equi-join key gathers every row in one task.
CREATE TABLE pairs (id BIGINT, customer INT, amount DECIMAL(10, 2), ts TIMESTAMP(3), other BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO pairs
SELECT a.*, b.id FROM orders a JOIN orders b ON a.customer = b.customer AND a.id < b.id;
INSERT INTO enriched
SELECT o.id, c.name, o.amount, o.ts FROM orders o, customers c WHERE o.amount > c.id;
