CREATE TABLE orders (oid BIGINT, customer BIGINT, p AS PROCTIME()) WITH ('connector' = 'datagen');
CREATE TABLE customers (id BIGINT, name STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://db:5432/app', 'table-name' = 'customers');
CREATE TABLE out (oid BIGINT, name STRING) WITH ('connector' = 'blackhole');
-- The LOOKUP hint's options are checked, and it must name a lookup join's table.
INSERT INTO out SELECT /*+ LOOKUP('table' = 'c', 'asynch' = 'true') */ o.oid, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
INSERT INTO out SELECT /*+ LOOKUP('async' = 'true') */ o.oid, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
INSERT INTO out SELECT /*+ LOOKUP('table' = 'c', 'async' = 'maybe') */ o.oid, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
INSERT INTO out SELECT /*+ LOOKUP('table' = 'c', 'retry-predicate' = 'lookup_miss', 'max-attempts' = '3') */ o.oid, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
INSERT INTO out SELECT /*+ LOOKUP('table' = 'c', 'retry-predicate' = 'lookup_miss', 'retry-strategy' = 'fixed_delay', 'fixed-delay' = 'soon', 'max-attempts' = '3') */ o.oid, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
INSERT INTO out SELECT /*+ LOOKUP('table' = 'customers') */ o.oid, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
INSERT INTO out SELECT /*+ LOOKUP('table' = 'customers') */ oid, 'x' FROM orders;
