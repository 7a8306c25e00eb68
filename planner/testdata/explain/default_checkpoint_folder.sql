-- The seed article's Kafka -> Kafka job, as written for Flink: an
-- exactly-once sink (Flink 1.13's 'sink.semantic'), earliest-offset, and no
-- checkpoint folder. Its checkpoints go to the per-user default folder,
-- which EXPLAIN names.
SET 'execution.checkpointing.interval' = '5s';

CREATE TABLE source_kafka (id BIGINT, name STRING) WITH (
  'connector' = 'kafka', 'topic' = 'source-topic',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'seed',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE sink_kafka (id BIGINT, name STRING) WITH (
  'connector' = 'kafka', 'topic' = 'sink-topic',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.semantic' = 'exactly-once', 'format' = 'json'
);

INSERT INTO sink_kafka SELECT id, name FROM source_kafka;
