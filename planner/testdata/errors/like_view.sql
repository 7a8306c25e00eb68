CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT * FROM src;
CREATE TABLE t2 WITH ('connector' = 'blackhole') LIKE v;
