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
-- back.
--
-- Run (the table must exist in the database):
--   CREATE TABLE ledger (id BIGINT, account VARCHAR(40), amount DECIMAL(10, 2));
--   KAFKA_BOOTSTRAP=host:port MYSQL_URL=jdbc:mariadb://host:3306/db MYSQL_USER=... MYSQL_PASSWORD=... \
--     go run ./cmd/streamsql run examples/sql/kafka_to_mariadb_exactly_once.sql
--
-- Tested by examples/examples_test.go against the real broker and
-- MariaDB: five payments, the writing pipeline first, then the table read
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
