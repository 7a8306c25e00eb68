CREATE TABLE c (id BIGINT, name STRING, bad AS name + 1) WITH ('connector' = 'datagen');
