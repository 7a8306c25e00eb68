-- avro_confluent.sql: a Kafka topic of Avro records with a Confluent schema
-- registry, written and read back.
--
-- Shows: 'avro-confluent' as key and value format. Writing registers the
-- schema derived from each table's columns under the subjects
-- <topic>-key and <topic>-value (as Flink does) and prefixes every record
-- with the schema's id; reading fetches each writer schema once by id and
-- resolves it against the table, so records written with an older
-- compatible schema still read.
--
-- Run against a broker and a Confluent-compatible registry:
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 SCHEMA_REGISTRY_URL=http://127.0.0.1:8081 \
--     go run ./cmd/streamsql run examples/sql/avro_confluent.sql
--
-- Tested by examples/examples_test.go against the real broker and the
-- repository's test registry (internal/testrig/srtest): it runs the INSERT bounded,
-- then the SELECT bounded at the topic's end, into avro_confluent.expected.
SET 'execution.checkpointing.interval' = '2s';
-- Checkpoints go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job>: execution.checkpointing.dir
-- chooses another.

CREATE TABLE payments_gen (id BIGINT, customer STRING, amount DECIMAL(10, 2)) WITH (
  'connector' = 'datagen', 'rows-per-second' = '2', 'seed' = '7',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000',
  'fields.customer.length' = '5'
);

CREATE TABLE payments (id BIGINT, customer STRING, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'avro-payments',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'avro-payments',
  'scan.startup.mode' = 'earliest-offset',
  'key.format' = 'avro-confluent', 'key.fields' = 'id',
  'key.avro-confluent.url' = '${SCHEMA_REGISTRY_URL:-http://127.0.0.1:8081}',
  'value.format' = 'avro-confluent',
  'value.avro-confluent.url' = '${SCHEMA_REGISTRY_URL:-http://127.0.0.1:8081}'
);

INSERT INTO payments SELECT id, customer, amount FROM payments_gen;

SELECT id, customer, amount FROM payments;
