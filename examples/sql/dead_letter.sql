-- dead_letter.sql: keep the records a job cannot read, instead of failing
-- on them or dropping them silently.
--
-- Shows: 'scan.bad-record.policy' = 'dead-letter' on a Kafka source. A
-- record the json format cannot decode, and a record whose row the NOT
-- NULL column 'id' of the sink rejects, go unchanged (key, value, headers,
-- timestamp) to the topic 'payments-dead-letters', with headers
-- streamsql.dead-letter.* saying where each came from (topic, partition,
-- offset, table, job) and why (reason, error). The sink is exactly-once
-- on the same cluster, so it writes the dead letters inside its own
-- transactions, with the output of the checkpoint that read past them: a
-- read_committed reader sees each once, together with that output, even
-- after a crash (EXPLAIN: "dead letters after a crash"). 'skip' instead of
-- 'dead-letter' skips, counts and logs them; the default 'fail' stops the
-- job naming the record's topic, partition and offset.
--
-- Run against a broker where the three topics exist, with the sample
-- payments (examples/data/dead_letter/payments.jsonl: one not JSON, one
-- without an id) loaded into 'payments' once (Ctrl-C stops):
--   go run ./cmd/streamsql topic load --bootstrap-servers 127.0.0.1:9092 \
--     --topic payments examples/data/dead_letter/payments.jsonl
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 go run ./cmd/streamsql run examples/sql/dead_letter.sql
-- or, with no Kafka installed, on an in-process broker:
--   go run ./cmd/streamsql run --embedded-kafka \
--     --load payments=examples/data/dead_letter/payments.jsonl examples/sql/dead_letter.sql
--
-- Tested by examples/run_test.go: the sample records are read bounded; the valid payments and the dead
-- letters read back with their headers are compared with
-- dead_letter.expected.
SET 'execution.checkpointing.interval' = '5s';
-- Exactly-once output keeps its guarantee across a crash through the
-- job's checkpoints, which outlive the process: a restarted job commits
-- what the last checkpoint left pending and resumes from it. With no
-- execution.checkpointing.dir they go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job> (EXPLAIN prints it).

CREATE TABLE payments (id BIGINT, amount DECIMAL(10, 2), account STRING) WITH (
  'connector' = 'kafka', 'topic' = 'payments',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json',
  'scan.bad-record.policy' = 'dead-letter',
  'scan.bad-record.dead-letter.topic' = 'payments-dead-letters'
);

CREATE TABLE valid_payments (id BIGINT NOT NULL, amount DECIMAL(10, 2), account STRING) WITH (
  'connector' = 'kafka', 'topic' = 'valid-payments',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'valid-payments',
  'format' = 'json'
);

INSERT INTO valid_payments SELECT id, amount, account FROM payments;

-- The dead letters, read back as they are: the original value, and two of
-- the headers that say where it came from and why.
CREATE TABLE dead_letters (
  original STRING,
  headers MAP<STRING, BYTES> METADATA FROM 'headers'
) WITH (
  'connector' = 'kafka', 'topic' = 'payments-dead-letters',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'raw'
);

SELECT original,
  CAST(headers['streamsql.dead-letter.offset'] AS STRING) AS source_offset,
  CAST(headers['streamsql.dead-letter.reason'] AS STRING) AS reason
FROM dead_letters;
