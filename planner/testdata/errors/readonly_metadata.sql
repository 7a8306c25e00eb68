CREATE TABLE ksrc (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE ksnk (id BIGINT, name STRING, off BIGINT METADATA FROM 'offset') WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
INSERT INTO ksnk SELECT id, name, 0 FROM ksrc;
