CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT * FROM src;
CREATE VIEW v AS SELECT id FROM src;
