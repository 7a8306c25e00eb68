-- datagen_print_blackhole.sql: the test connectors, datagen, print and
-- blackhole, with no broker.
--
-- Shows: datagen's per-column generators (a sequence, random numbers in a
-- range, variable-length strings, a share of NULLs) made reproducible by
-- 'seed'; the print connector's output, Flink's "identifier> +I[...]"
-- lines; and blackhole, which accepts rows and drops them (what the
-- benchmarks use to measure a source alone). Both INSERTs read their own
-- copy of 'users': with the same seed they are the same rows.
--
-- Run (it ends after 5 rows; without the sequence datagen runs forever):
--   go run ./cmd/streamsql run examples/sql/datagen_print_blackhole.sql
--
-- Tested by examples/examples_test.go: the printed lines are compared with
-- datagen_print_blackhole.expected.
CREATE TABLE users (
  id BIGINT, name VARCHAR(8), score INT, active BOOLEAN
) WITH (
  'connector' = 'datagen', 'seed' = '1', 'rows-per-second' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5',
  'fields.name.var-len' = 'true',
  'fields.score.min' = '0', 'fields.score.max' = '100', 'fields.score.null-rate' = '0.4'
);

CREATE TABLE shown (id BIGINT, name VARCHAR(8), score INT, active BOOLEAN) WITH (
  'connector' = 'print', 'print-identifier' = 'users'
);

CREATE TABLE dropped (id BIGINT, name VARCHAR(8)) WITH ('connector' = 'blackhole');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO shown SELECT * FROM users;
  INSERT INTO dropped SELECT id, name FROM users WHERE active;
END;
