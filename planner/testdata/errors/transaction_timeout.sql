SET 'execution.checkpointing.interval' = '1 min';
CREATE TABLE ksrc (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
CREATE TABLE ksnk (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'x', 'properties.transaction.timeout.ms' = '60000');
INSERT INTO ksnk SELECT * FROM ksrc;
