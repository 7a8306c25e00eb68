-- filesystem_2pc.sql: two-phase commit with files.
--
-- Shows: the filesystem sink's exactly-once protocol. Rows go to hidden
-- in-progress files (.part-....inprogress); at each checkpoint the files
-- are flushed and fsynced (phase one, pre-commit), and once the checkpoint
-- is stored they are renamed into place (phase two, commit). A reader of
-- the directory sees only complete files of committed checkpoints; after a
-- crash, the restarted job commits what its last checkpoint listed and
-- deletes the rest. Files are partitioned by 'kind' (kind=low/, kind=high/).
--
-- Run (Ctrl-C stops; output under $OUTPUT_DIR, default /tmp/streamsql-2pc):
--   go run ./cmd/streamsql run examples/sql/filesystem_2pc.sql
--   find /tmp/streamsql-2pc -type f
--
-- Tested by examples/examples_test.go: 8 rows into a temporary directory;
-- the committed files' lines, prefixed with their partition directory and
-- sorted, are compared with filesystem_2pc.expected, and no in-progress
-- file may remain.
SET 'execution.checkpointing.interval' = '5s';
-- Exactly-once output keeps its guarantee across a crash through the
-- job's checkpoints, which outlive the process: a restarted job commits
-- what the last checkpoint left pending and resumes from it. With no
-- execution.checkpointing.dir they go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job> (EXPLAIN prints it).

CREATE TABLE gen (id BIGINT, v INT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '10', 'seed' = '11',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000',
  'fields.v.min' = '0', 'fields.v.max' = '9'
);

CREATE TABLE files (id BIGINT, v INT, kind STRING) PARTITIONED BY (kind) WITH (
  'connector' = 'filesystem',
  'path' = '${OUTPUT_DIR:-/tmp/streamsql-2pc}',
  'format' = 'json'
);

INSERT INTO files SELECT id, v, CASE WHEN v < 5 THEN 'low' ELSE 'high' END FROM gen;
