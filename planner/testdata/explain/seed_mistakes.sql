-- The seed's mistakes: exactly-once configured for the job rather than the
-- sink, and a read_uncommitted reader of a transactionally written topic.
SET 'execution.checkpointing.interval' = '10s';
SET 'execution.checkpointing.mode' = 'EXACTLY_ONCE';
SET 'pipeline.name' = 'seed-job';

CREATE TABLE orders (
  id BIGINT, amount DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE copies (id BIGINT, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'copies',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'format' = 'json'
);

CREATE TABLE committed (id BIGINT, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'committed',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.delivery-guarantee' = 'exactly-once',
  'format' = 'json'
);

-- Reads what the exactly-once sink writes, without read_committed.
CREATE TABLE committed_reader WITH ('scan.bounded.mode' = 'latest-offset') LIKE committed;

CREATE TABLE audit (id BIGINT, amount DECIMAL(10, 2)) WITH ('connector' = 'print');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO copies SELECT * FROM orders;
  INSERT INTO committed SELECT * FROM orders WHERE amount > 0;
  INSERT INTO audit SELECT * FROM committed_reader;
END;
SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
