CREATE TABLE snk (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
INSERT INTO snk VALUES (1, 'a', 1.5), ('x', 'b', 2.5);
