-- upsert_low_latency.sql: low latency without transactions, at least
-- once into an idempotent upsert sink.
--
-- Shows: the other side of the seed's trade-off. An exactly-once Kafka
-- sink makes its rows visible to read_committed readers only when a
-- checkpoint commits them (latency about the checkpoint interval). Here
-- the sink is upsert-kafka, which writes at least once with no
-- transactions: each row is visible as soon as it is written, whatever the
-- checkpoint interval (30 s here). After a failure the rows since the last
-- checkpoint are written again, but they are upserts by PRIMARY KEY (the
-- Kafka record key), so a reader of the compacted changelog ends with the
-- same value per key: idempotent, hence effectively exactly once for the
-- latest state. The job keeps each sensor's latest reading.
--
-- Run, with no Kafka installed (Ctrl-C stops):
--   go run ./cmd/streamsql run --embedded-kafka examples/sql/upsert_low_latency.sql
-- or with KAFKA_BOOTSTRAP=host:port and the topic 'sensor-latest'.
--
-- Tested by examples/examples_test.go: 12 readings, writing pipeline
-- first, then the changelog read back bounded at the latest offset and
-- compared with upsert_low_latency.expected.
SET 'execution.checkpointing.interval' = '30s';

CREATE TABLE readings (sensor BIGINT NOT NULL, reading INT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '5', 'seed' = '3',
  'fields.sensor.min' = '1', 'fields.sensor.max' = '4',
  'fields.reading.min' = '0', 'fields.reading.max' = '100'
);

CREATE TABLE sensor_latest (
  sensor BIGINT, reading INT,
  PRIMARY KEY (sensor) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'sensor-latest',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'key.format' = 'json', 'value.format' = 'json'
);

INSERT INTO sensor_latest SELECT sensor, reading FROM readings;

SELECT sensor, reading FROM sensor_latest;
