CREATE TABLE orders (id BIGINT) WITH (
  'connector' = 'kafka',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}'
);
