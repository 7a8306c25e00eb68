CREATE TABLE orders (id BIGINT) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'topic' = 'orders-v2'
);
