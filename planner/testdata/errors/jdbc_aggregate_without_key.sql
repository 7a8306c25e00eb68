CREATE TABLE orders (customer STRING, amount INT) WITH ('connector' = 'datagen');
CREATE TABLE totals (customer STRING, total INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://db:5432/app', 'table-name' = 'totals');
INSERT INTO totals SELECT customer, SUM(amount) FROM orders GROUP BY customer;
