-- filesystem_bad_records.sql: skip the lines a job cannot read, and say
-- where they are.
--
-- Shows: 'scan.bad-record.policy' = 'skip' on a filesystem source. A line
-- the json format cannot decode, and a line whose row the NOT NULL column
-- 'id' of the sink rejects, are skipped, counted in
-- streamsql_task_bad_records_skipped_total and logged as warnings naming
-- the file, line and byte offset (at most one message per 10 s). Without
-- the option ('fail', as Flink) the job stops at the first of them with
-- the same position in its error. The files stay where they are, so the
-- position is the record: there is no dead-letter policy for files.
--
-- The input has three bad lines: 3 and 6 are not JSON, 4 has no id.
--
-- Run (reads examples/data/payments, writes under $OUTPUT_DIR, default
-- /tmp/streamsql-payments; the log names line 3, the first skipped, and
-- when the read ends says that 2 more were skipped and not logged):
--   go run ./cmd/streamsql run examples/sql/filesystem_bad_records.sql
--
-- Tested by examples/examples_test.go: the committed files' lines, sorted,
-- are compared with filesystem_bad_records.expected (the four good
-- payments).
SET 'execution.checkpointing.interval' = '5s';
-- Checkpoints go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job>: execution.checkpointing.dir
-- chooses another.

CREATE TABLE payments (id BIGINT, amount DECIMAL(10, 2), account STRING) WITH (
  'connector' = 'filesystem',
  'path' = '${INPUT_DIR:-examples/data/payments}',
  'format' = 'json',
  'scan.bad-record.policy' = 'skip'
);

CREATE TABLE valid_payments (id BIGINT NOT NULL, amount DECIMAL(10, 2), account STRING) WITH (
  'connector' = 'filesystem',
  'path' = '${OUTPUT_DIR:-/tmp/streamsql-payments}',
  'format' = 'json'
);

INSERT INTO valid_payments SELECT id, amount, account FROM payments;
