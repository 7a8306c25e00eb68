-- An orders job: a read_committed Kafka source, an exactly-once Kafka sink.
SET 'execution.checkpointing.interval' = '5s';

CREATE TABLE orders (
  id BIGINT, amount DECIMAL(10, 2), customer STRING,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'
) WITH (
  'connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.group.id' = 'orders-job',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE big_orders (id BIGINT, amount DECIMAL(10, 2), customer STRING) WITH (
  'connector' = 'kafka', 'topic' = 'big-orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.semantic' = 'exactly-once', 'sink.transactional-id-prefix' = 'big-orders',
  'format' = 'json'
);

INSERT INTO big_orders SELECT id, amount, UPPER(customer) FROM orders WHERE amount > 100;
