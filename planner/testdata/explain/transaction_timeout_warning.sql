-- Flink accepts a transaction timeout of 10 min with a 10 s interval,
-- and so does streamsql: it covers a checkpoint interval, and only a
-- checkpoint slower than 590 s outlives it (a warning, not an error).
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = 'file:///var/lib/streamsql';
CREATE TABLE ksrc (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092',
  'properties.isolation.level' = 'read_committed', 'format' = 'json');
CREATE TABLE ksnk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'x', 'properties.transaction.timeout.ms' = '600000');
INSERT INTO ksnk SELECT * FROM ksrc;
