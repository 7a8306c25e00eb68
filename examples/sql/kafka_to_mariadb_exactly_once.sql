-- kafka_to_mariadb_exactly_once.sql: Kafka → MariaDB (or MySQL) exactly
-- once, through the database's own two-phase commit.
--
-- Shows: with 'sink.delivery-guarantee' = 'exactly-once' each sink task
-- writes the rows between two checkpoints in one XA transaction, prepares
-- it at the checkpoint (XA END, XA PREPARE) and commits it (XA COMMIT) when
-- the checkpoint completes: readers of the table see a checkpoint's rows
-- at once, and a crash neither loses nor duplicates one, even with no
-- PRIMARY KEY. On restart the job commits what its checkpoint lists and
-- rolls back its other prepared transactions (XA RECOVER). The checkpoint
-- directory must outlive the process. The bare SELECT reads the table
-- back once, as the job starts and while the INSERT runs: it prints the
-- rows an earlier run committed (none on the first run). To see this
-- run's rows, run the file again (with nothing new in 'payments' the
-- INSERT writes nothing more), or query the table: mariadb -e 'SELECT *
-- FROM ledger'.
--
-- Run (the table must exist in the database; the sample payments,
-- examples/data/kafka_to_mariadb_exactly_once/payments.jsonl, go into
-- 'payments' once, or with --embedded-kafka --load payments=... instead of
-- KAFKA_BOOTSTRAP):
--   CREATE TABLE ledger (id BIGINT, account VARCHAR(40), amount DECIMAL(10, 2));
--   go run ./cmd/streamsql topic load --bootstrap-servers host:port \
--     --topic payments examples/data/kafka_to_mariadb_exactly_once/payments.jsonl
--   KAFKA_BOOTSTRAP=host:port MYSQL_URL=jdbc:mariadb://host:3306/db MYSQL_USER=... MYSQL_PASSWORD=... \
--     go run ./cmd/streamsql run examples/sql/kafka_to_mariadb_exactly_once.sql
--
-- Tested by examples/run_test.go against the real broker and
-- MariaDB: the five sample payments, the writing pipeline first, then the table read
-- back and compared with kafka_to_mariadb_exactly_once.expected.
SET 'execution.checkpointing.interval' = '2s';
-- Checkpoints go to the default folder,
-- ~/.local/state/streamsql/checkpoints/<job>: execution.checkpointing.dir
-- chooses another.

CREATE TABLE payments (id BIGINT, account STRING, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'payments',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE ledger (id BIGINT, account STRING, amount DECIMAL(10, 2)) WITH (
  'connector' = 'jdbc',
  'url' = '${MYSQL_URL:-jdbc:mariadb://localhost:3306/streamsql}',
  'table-name' = 'ledger',
  'username' = '${MYSQL_USER:-streamsql}', 'password' = '${MYSQL_PASSWORD:-}',
  'sink.delivery-guarantee' = 'exactly-once'
);

INSERT INTO ledger SELECT id, UPPER(account), amount FROM payments WHERE amount <> 0;

SELECT id, account, amount FROM ledger;
