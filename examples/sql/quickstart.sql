-- quickstart.sql: generated orders through Kafka, exactly once, and back.
--
-- Shows: one job with two pipelines. The first writes generated orders to
-- a Kafka topic in transactions committed with each checkpoint
-- ('sink.delivery-guarantee' = 'exactly-once'); the second reads the same
-- topic with 'properties.isolation.level' = 'read_committed' and prints
-- each row (a bare SELECT prints +I[...] lines). Rows appear about one
-- checkpoint interval (2 s here) after they were generated: a
-- read_committed reader sees a transaction only once it commits.
--
-- Run, with no Kafka installed (an in-process broker; Ctrl-C stops):
--   go run ./cmd/streamsql run --embedded-kafka examples/sql/quickstart.sql
-- or against a broker where the topic 'quickstart-orders' exists:
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 go run ./cmd/streamsql run examples/sql/quickstart.sql
--
-- Tested by examples/examples_test.go: with 10 rows (number-of-rows) and a
-- topic of its own, it runs the writing pipeline to its end, then the
-- reading one bounded at the topic's latest offset, and compares the
-- printed rows with quickstart.expected.
SET 'execution.checkpointing.interval' = '2s';
-- Exactly-once output keeps its guarantee across a crash through the
-- job's checkpoints, which outlive the process: a restarted job commits
-- what the last checkpoint left pending and resumes from it. With no
-- execution.checkpointing.dir they go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job> (EXPLAIN prints it).

CREATE TABLE orders_gen (id BIGINT, customer STRING, amount INT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '2', 'seed' = '42',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000',
  'fields.customer.length' = '6',
  'fields.amount.min' = '1', 'fields.amount.max' = '500'
);

CREATE TABLE orders (id BIGINT, customer STRING, amount INT) WITH (
  'connector' = 'kafka', 'topic' = 'quickstart-orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'quickstart',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'quickstart',
  'format' = 'json'
);

INSERT INTO orders SELECT id, customer, amount FROM orders_gen;

SELECT id, customer, amount FROM orders;
