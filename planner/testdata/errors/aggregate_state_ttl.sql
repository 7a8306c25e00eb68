CREATE TABLE orders (id BIGINT, customer STRING, amount BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE totals (customer STRING, total BIGINT) WITH ('connector' = 'blackhole');
-- A STATE_TTL key that names neither the table nor its alias.
INSERT INTO totals SELECT /*+ STATE_TTL('orders' = '1d') */ customer, SUM(amount) FROM orders o GROUP BY customer;
