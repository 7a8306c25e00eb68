CREATE TABLE src (k STRING, v BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE snk (c BIGINT, n BIGINT, PRIMARY KEY (c) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO snk SELECT cnt, COUNT(*) FROM (SELECT k, COUNT(*) AS cnt FROM src GROUP BY k) GROUP BY cnt;
CREATE TABLE snk2 (k STRING, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 't2', 'properties.bootstrap.servers' = 'x:1', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO snk2 SELECT k, SUM(v) FROM src GROUP BY k HAVING SUM(v) > 10;
