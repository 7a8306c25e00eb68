CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT * FROM src WHERE name SIMILAR TO 'a%';
