CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE u (id BIGINT, name STRING) WITH ('connector' = 'upsert-kafka', 'topic' = 'u', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO u SELECT * FROM src;
