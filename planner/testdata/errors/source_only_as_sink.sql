CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');
INSERT INTO g SELECT id FROM src;
