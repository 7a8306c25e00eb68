CREATE TABLE u (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'u', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE ksnk (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
INSERT INTO ksnk SELECT * FROM u;
