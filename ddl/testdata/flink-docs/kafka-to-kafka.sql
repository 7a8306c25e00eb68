-- Source: https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/examples/kafka-to-kafka/kafka-to-kafka/
-- (apache/flink, docs/content/docs/dev/table/sql/examples/kafka-to-kafka/kafka-to-kafka.md)
-- Input Table
CREATE TABLE kafka_input (
  name STRING,
  email STRING,
  role STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'i-topic',
  'properties.bootstrap.servers' = 'kafka:9093',
  'properties.group.id' = 'flink-i-consumer',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);

-- Output Table
CREATE TABLE kafka_output (
  name STRING,
  email STRING,
  role STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'o-topic',
  'properties.bootstrap.servers' = 'kafka:9093',
  'format' = 'json'
);

INSERT INTO kafka_output
SELECT
  UPPER(name) AS name,
  email,
  role
FROM kafka_input
WHERE role = 'developer';
