CREATE TABLE k (id BIGINT, h BOOLEAN METADATA FROM 'headers') WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE out1 (id BIGINT, h BOOLEAN) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT * FROM k;
