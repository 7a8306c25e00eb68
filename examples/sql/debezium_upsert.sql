-- debezium_upsert.sql: a database table's change events, as Debezium
-- writes them to Kafka, kept as the table's latest state in a compacted
-- upsert-kafka topic.
--
-- Shows: 'format' = 'debezium-json' makes a Kafka topic a changelog
-- source. Each Debezium event becomes rows of the table: a create ('c')
-- or snapshot read ('r') an INSERT (+I), an update ('u') an UPDATE_BEFORE
-- and an UPDATE_AFTER row (-U/+U), a delete ('d') a DELETE (-D); the
-- tombstone Debezium writes after a delete is skipped. The envelope's
-- metadata is read with METADATA FROM 'value.source.table' and
-- 'value.source.timestamp'. The upsert-kafka sink writes each key's
-- latest value and a tombstone for a delete (UPDATE_BEFORE rows need no
-- record there). Records with the Kafka Connect schema envelope
-- ({"schema": ..., "payload": ...}) need 'debezium-json.schema-include'
-- = 'true'.
--
-- Run, with no Kafka installed, on the sample change events the example
-- ships (a snapshot read, a create, an update, a delete and its
-- tombstone, a create with a NULL name, in
-- examples/data/debezium_upsert/dbserver1.inventory.products.jsonl); both
-- SELECTs print what debezium_upsert.expected holds (Ctrl-C stops):
--   go run ./cmd/streamsql run --embedded-kafka \
--     --load dbserver1.inventory.products=examples/data/debezium_upsert/dbserver1.inventory.products.jsonl \
--     examples/sql/debezium_upsert.sql
-- or with KAFKA_BOOTSTRAP=host:port and Debezium writing the topic
-- 'dbserver1.inventory.products' (or the sample loaded into it once:
--   go run ./cmd/streamsql topic load --bootstrap-servers host:port \
--     --topic dbserver1.inventory.products \
--     examples/data/debezium_upsert/dbserver1.inventory.products.jsonl).
--
-- Tested by examples/run_test.go (the sample events are read, the latest
-- state written, then the changelog rows and the upsert topic read back
-- are compared with debezium_upsert.expected) and, as run above, by
-- TestDebeziumExampleOnEmbeddedBroker in cmd/streamsql.
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE products_cdc (
  id BIGINT, name STRING, price DECIMAL(10, 2),
  origin_table STRING METADATA FROM 'value.source.table' VIRTUAL,
  changed_at TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL
) WITH (
  'connector' = 'kafka', 'topic' = 'dbserver1.inventory.products',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'debezium-json'
);

CREATE TABLE products_latest (
  id BIGINT, name STRING, price DECIMAL(10, 2), origin STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'products-latest',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'key.format' = 'json', 'value.format' = 'json'
);

INSERT INTO products_latest SELECT id, name, price, origin_table FROM products_cdc;

SELECT id, name, price, origin_table, changed_at FROM products_cdc;

SELECT id, name, price, origin FROM products_latest;
