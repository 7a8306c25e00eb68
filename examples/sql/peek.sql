-- peek.sql: look into a topic.
--
-- Shows: a bare SELECT prints its rows (Flink's SQL client style, +I[...]),
-- so a three-statement file is a quick way to read a topic: here every
-- committed record of ${TOPIC} as text, with its partition and offset, from
-- the earliest offset to the end the topic has when the job starts (then
-- the job ends). Change 'format' and the columns to decode the records.
--
-- Run, for example on the topic the quick start writes:
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 TOPIC=quickstart-orders go run ./cmd/streamsql run examples/sql/peek.sql
--
-- Tested by examples/examples_test.go: three records written to a topic of
-- its own are printed as in peek.expected.
CREATE TABLE topic (
  `value` STRING,
  `partition` INT METADATA VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL
) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC:-quickstart-orders}',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'raw'
);

SELECT `partition`, `offset`, `value` FROM topic;
