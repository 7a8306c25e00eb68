CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE ksnk (id BIGINT, k STRING METADATA FROM 'key') WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
INSERT INTO ksnk SELECT id, 'x' FROM src;
