CREATE TABLE cdc (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'cdc', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'debezium-json');
CREATE TABLE ledger (id BIGINT, name STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://db:5432/app', 'table-name' = 'ledger');
INSERT INTO ledger SELECT * FROM cdc;
