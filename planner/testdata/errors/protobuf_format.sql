CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'protobuf');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT * FROM k;
