-- exactly_once.sql: copy big orders from one topic to another, exactly once.
--
-- Shows: a read_committed Kafka source, a SQL filter and projection, and a
-- Kafka sink whose writes are transactions committed with each checkpoint
-- (so downstream read_committed readers see them about one checkpoint
-- interval after they were read).
--
-- Run against a broker where the topics 'orders' and 'big-orders' exist
-- (Ctrl-C stops; 'sink.semantic' is Flink 1.13's name, EXPLAIN warns):
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 go run ./cmd/streamsql run examples/sql/exactly_once.sql
-- or, with no Kafka installed, on an in-process broker (the topics start
-- empty; write JSON orders to 'orders' with any Kafka client, such as kcat,
-- at the address it prints):
--   go run ./cmd/streamsql run --embedded-kafka examples/sql/exactly_once.sql
--
-- Tested by examples/examples_test.go: it writes five orders to a topic of
-- its own, runs the job bounded at that topic's latest offset, and reads
-- the output topic back (read_committed) into exactly_once.expected.
SET 'execution.checkpointing.interval' = '5s';
-- Exactly-once output keeps its guarantee across a crash through the
-- job's checkpoints, which outlive the process: a restarted job commits
-- what the last checkpoint left pending and resumes from it. With no
-- execution.checkpointing.dir they go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job> (EXPLAIN prints it).

CREATE TABLE orders (
  id BIGINT, amount DECIMAL(10, 2), customer STRING,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'
) WITH (
  'connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'orders-job',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE big_orders (id BIGINT, amount DECIMAL(10, 2), customer STRING) WITH (
  'connector' = 'kafka', 'topic' = 'big-orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.semantic' = 'exactly-once', 'sink.transactional-id-prefix' = 'big-orders',
  'format' = 'json'
);

INSERT INTO big_orders SELECT id, amount, UPPER(customer) FROM orders WHERE amount > 100;
