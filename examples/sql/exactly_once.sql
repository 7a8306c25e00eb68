-- exactly_once.sql: copy big orders from one topic to another, exactly once.
--
-- Shows: a read_committed Kafka source, a SQL filter and projection, and a
-- Kafka sink whose writes are transactions committed with each checkpoint
-- (so downstream read_committed readers see them about one checkpoint
-- interval after they were read).
--
-- Run against a broker where the topic 'big-orders' exists, with the
-- sample orders (examples/data/exactly_once/orders.jsonl) loaded into
-- 'orders' once (Ctrl-C stops; 'sink.semantic' is Flink 1.13's name,
-- EXPLAIN warns):
--   go run ./cmd/streamsql topic load --bootstrap-servers 127.0.0.1:9092 \
--     --topic orders examples/data/exactly_once/orders.jsonl
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 go run ./cmd/streamsql run examples/sql/exactly_once.sql
-- or, with no Kafka installed, on an in-process broker (it creates both
-- topics; read 'big-orders' with any Kafka client at the address it
-- prints):
--   go run ./cmd/streamsql run --embedded-kafka \
--     --load orders=examples/data/exactly_once/orders.jsonl examples/sql/exactly_once.sql
--
-- Tested by examples/run_test.go: it writes the sample orders to a topic
-- of its own, runs the job bounded at that topic's latest offset, and
-- reads the output topic back (read_committed) into exactly_once.expected.
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
