CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, name FROM src;
