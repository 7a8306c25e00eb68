CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
