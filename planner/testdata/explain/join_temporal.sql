-- Event-time temporal joins: orders with the currency rate valid at each
-- order's time, from an upsert-kafka table (read as versions, without
-- ChangelogNormalize) and from a debezium-json topic (LEFT JOIN; the
-- condition on the rate decides which version matches, it does not filter
-- the versions). The output keeps the orders' rowtime attribute.
CREATE TABLE orders (id BIGINT, currency STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (currency) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE rates_cdc (currency STRING, rate DECIMAL(10, 4), ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (currency) NOT ENFORCED) WITH (
  'connector' = 'kafka', 'topic' = 'rates-cdc', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'properties.group.id' = 'g', 'scan.startup.mode' = 'earliest-offset', 'value.format' = 'debezium-json');
CREATE TABLE converted (id BIGINT, amount DECIMAL(20, 4), ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
CREATE TABLE hourly (window_start TIMESTAMP(3), total DECIMAL(38, 4)) WITH ('connector' = 'blackhole');
INSERT INTO converted
SELECT o.id, o.amount * r.rate, o.ts
FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
INSERT INTO converted
SELECT o.id, o.amount * r.rate, o.ts
FROM orders AS o LEFT JOIN rates_cdc FOR SYSTEM_TIME AS OF o.ts AS r ON r.currency = o.currency AND r.rate > 0;
INSERT INTO hourly
SELECT window_start, SUM(amount)
FROM TABLE(TUMBLE((SELECT o.ts, o.amount * r.rate AS amount FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency), DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
