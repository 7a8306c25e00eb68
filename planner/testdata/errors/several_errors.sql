CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT * FROM missing;
INSERT INTO snk SELECT id, nme, amount FROM src;
INSERT INTO snk SELECT id FROM src;
