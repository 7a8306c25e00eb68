SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE orders (id BIGINT, customer STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE totals (customer STRING, total DECIMAL(38, 2)) WITH ('connector' = 'blackhole');
CREATE TABLE counts (customer STRING, n BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE maxima (customer STRING, top DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
INSERT INTO totals SELECT /*+ STATE_TTL('o' = '1d') */ customer, SUM(amount) FROM orders o GROUP BY customer;
INSERT INTO counts SELECT /*+ STATE_TTL('orders' = '0 s') */ customer, COUNT(*) FROM orders GROUP BY customer;
INSERT INTO maxima SELECT customer, MAX(amount) FROM orders GROUP BY customer;
END;
