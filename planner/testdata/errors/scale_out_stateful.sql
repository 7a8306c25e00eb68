SET 'pipeline.scale-out' = 'true';
CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'x:1', 'properties.group.id' = 'g', 'format' = 'json');
CREATE TABLE snk (k STRING, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'x:1', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO snk SELECT k, COUNT(*) FROM src GROUP BY k;
