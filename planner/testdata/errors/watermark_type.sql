CREATE TABLE e (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS id - 5) WITH ('connector' = 'datagen');
