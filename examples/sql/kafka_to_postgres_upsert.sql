-- kafka_to_postgres_upsert.sql: Kafka → PostgreSQL, at least once into
-- an idempotent upsert, at low latency.
--
-- Shows: the jdbc sink with a PRIMARY KEY writes INSERT ... ON CONFLICT
-- (customer) DO UPDATE, flushed every 200 ms and at every checkpoint, with
-- no transaction spanning a checkpoint: each customer's latest order is in
-- the table within a flush interval. After a failure the orders since the
-- last checkpoint are written again, but as upserts of the same values, so
-- the table ends in the same state. The bare SELECT reads the table back
-- with the jdbc source (a bounded scan, ordered by the key) once, as the
-- job starts and while the INSERT runs: it prints the rows an earlier run
-- left (none on the first run). To see this run's rows, run the file again
-- (with nothing new in 'orders' the INSERT writes nothing more), or
-- query the table: psql -c 'SELECT * FROM customer_last_order'.
--
-- Run (the table must exist in the database; the sample orders,
-- examples/data/kafka_to_postgres_upsert/orders.jsonl, go into 'orders'
-- once, or with --embedded-kafka --load orders=... instead of
-- KAFKA_BOOTSTRAP):
--   CREATE TABLE customer_last_order (customer TEXT PRIMARY KEY, id BIGINT, amount NUMERIC(10, 2));
--   go run ./cmd/streamsql topic load --bootstrap-servers host:port \
--     --topic orders examples/data/kafka_to_postgres_upsert/orders.jsonl
--   KAFKA_BOOTSTRAP=host:port PG_URL=jdbc:postgresql://host:5432/db PG_USER=... PG_PASSWORD=... \
--     go run ./cmd/streamsql run examples/sql/kafka_to_postgres_upsert.sql
--
-- Tested by examples/run_test.go against the real broker and
-- PostgreSQL: the six sample orders of three customers, the writing pipeline first,
-- then the table read back and compared with
-- kafka_to_postgres_upsert.expected.
SET 'execution.checkpointing.interval' = '10s';

CREATE TABLE orders (id BIGINT, customer STRING, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE customer_last_order (
  customer STRING, id BIGINT, amount DECIMAL(10, 2),
  PRIMARY KEY (customer) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = '${PG_URL:-jdbc:postgresql://localhost:5432/postgres}',
  'table-name' = 'customer_last_order',
  'username' = '${PG_USER:-postgres}', 'password' = '${PG_PASSWORD:-}',
  'sink.buffer-flush.interval' = '200ms'
);

INSERT INTO customer_last_order SELECT customer, id, amount FROM orders;

SELECT customer, id, amount FROM customer_last_order;
