-- isolation_levels.sql: what read_uncommitted and read_committed readers
-- see of one transactional topic.
--
-- Shows: the seed's second question. A Kafka sink writes generated events
-- exactly once, in transactions committed every 10 s (the checkpoint
-- interval). Two tables read the same topic: 'events_uncommitted' with
-- 'properties.isolation.level' = 'read_uncommitted', 'events_committed'
-- with 'read_committed'. The printed rows are tagged with the reader. Run
-- unbounded, the read_uncommitted lines appear as soon as the records are
-- written (and would include records of transactions that abort), the
-- read_committed ones only when the checkpoint commits them, in bursts
-- every 10 s. EXPLAIN warns that a read_uncommitted source reads a topic
-- that an exactly-once sink of the job writes: that is the point here.
--
-- Run, with no Kafka installed (Ctrl-C stops):
--   go run ./cmd/streamsql run --embedded-kafka examples/sql/isolation_levels.sql
-- or with KAFKA_BOOTSTRAP=host:port and the topic 'isolation-events'.
--
-- Tested by examples/examples_test.go: 6 events, writing pipeline first,
-- then both readers bounded at the latest offset; once every transaction
-- has committed both readers see the same 6 rows (isolation_levels.expected).
-- Aborted and open transactions are tested against a real broker in
-- internal/testrig/kafkatest (TestIsolationLevels).
SET 'execution.checkpointing.interval' = '10s';
-- Exactly-once output keeps its guarantee across a crash through the
-- job's checkpoints, which outlive the process: a restarted job commits
-- what the last checkpoint left pending and resumes from it. With no
-- execution.checkpointing.dir they go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job> (EXPLAIN prints it).

CREATE TABLE gen (id BIGINT, temperature INT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '1', 'seed' = '7',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000',
  'fields.temperature.min' = '-10', 'fields.temperature.max' = '40'
);

CREATE TABLE events (id BIGINT, temperature INT) WITH (
  'connector' = 'kafka', 'topic' = 'isolation-events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'isolation-events',
  'format' = 'json'
);

CREATE TABLE events_uncommitted (id BIGINT, temperature INT) WITH (
  'connector' = 'kafka', 'topic' = 'isolation-events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_uncommitted',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE events_committed (id BIGINT, temperature INT) WITH (
  'connector' = 'kafka', 'topic' = 'isolation-events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

INSERT INTO events SELECT id, temperature FROM gen;

SELECT CAST('read_uncommitted' AS STRING) AS reader, id, temperature FROM events_uncommitted
UNION ALL
SELECT CAST('read_committed' AS STRING) AS reader, id, temperature FROM events_committed;
