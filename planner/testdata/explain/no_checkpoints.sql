-- An exactly-once sink in a job without checkpointing, with a derived
-- transactional-id prefix (Flink 1.13 style: only sink.semantic is set).
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');

CREATE TABLE out_topic (id BIGINT, name STRING) WITH (
  'connector' = 'kafka', 'topic' = 'out',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.semantic' = 'exactly-once',
  'format' = 'json'
);

INSERT INTO out_topic SELECT id, name FROM src;
SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
