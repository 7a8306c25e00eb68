CREATE TABLE orders (id BIGINT, cid BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE customers (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE enriched (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO enriched
SELECT o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id;
