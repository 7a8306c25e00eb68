CREATE TABLE orders (id BIGINT, customer STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE totals (customer STRING, total DECIMAL(38, 2)) WITH ('connector' = 'blackhole');
INSERT INTO totals
SELECT customer, SUM(amount)
FROM orders
GROUP BY customer;
