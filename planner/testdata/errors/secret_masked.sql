CREATE TABLE orders (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json', 'properties.sasl.jaas.config' = 'PlainLoginModule required password="secret";');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT * FROM orders;
