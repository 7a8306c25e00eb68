-- A SASL-authenticated Kafka source: the JAAS configuration (and its
-- password) is masked in EXPLAIN.
CREATE TABLE orders (id BIGINT) WITH (
  'connector' = 'kafka', 'topic' = 'orders', 'format' = 'json',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.security.protocol' = 'SASL_PLAINTEXT',
  'properties.sasl.mechanism' = 'PLAIN',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="s3cret";'
);
SELECT * FROM orders;
