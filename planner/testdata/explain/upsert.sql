-- An upsert-kafka table read and written: updates flow into an upsert
-- sink and a print sink, which accept them.
SET 'execution.checkpointing.interval' = '1 min';

CREATE TABLE users (
  id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'users',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'key.format' = 'json', 'value.format' = 'json'
);

CREATE TABLE users_copy WITH ('topic' = 'users-copy') LIKE users;

CREATE TABLE audit (id BIGINT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'audit');

INSERT INTO users_copy SELECT id, LOWER(name) FROM users;
INSERT INTO audit SELECT * FROM users;
