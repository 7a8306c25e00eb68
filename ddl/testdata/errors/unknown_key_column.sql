CREATE TABLE t (
  id BIGINT,
  PRIMARY KEY (user_id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka');
