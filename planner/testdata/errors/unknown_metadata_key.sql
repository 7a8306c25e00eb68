CREATE TABLE k (id BIGINT, p INT METADATA FROM 'partiton') WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE out1 (id BIGINT, p INT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT * FROM k;
