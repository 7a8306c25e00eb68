-- Lookup joins: each order looks its customer up in a jdbc table when it
-- arrives (FOR SYSTEM_TIME AS OF a processing-time attribute), with a
-- PARTIAL cache and a LEFT JOIN whose key needs a cast and whose
-- condition on the looked-up row stays in the join.
SET 'table.exec.async-lookup.buffer-capacity' = '16';
CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2), proc AS PROCTIME()) WITH ('connector' = 'datagen');
CREATE TABLE customers (id BIGINT, name STRING, country STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://db:5432/shop', 'table-name' = 'customers',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10000', 'lookup.partial-cache.expire-after-write' = '10 min', 'lookup.max-retries' = '2');
CREATE TABLE enriched (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
INSERT INTO enriched
SELECT o.id, c.name, o.amount
FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.proc AS c ON o.customer = c.id;
INSERT INTO enriched
SELECT o.id, c.name, o.amount
FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc AS c ON c.id = o.customer AND c.country = 'NL';
