CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'properties.sasl.password' = 'hunter2hunter', 'scan.startup.mode' = 'bogus', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT id FROM k;
