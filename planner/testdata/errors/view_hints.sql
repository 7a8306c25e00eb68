CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
CREATE VIEW v AS SELECT * FROM src;
INSERT INTO snk SELECT * FROM v /*+ OPTIONS('rows-per-second' = '1') */;
