CREATE TABLE src (id BIGINT, name STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://db/x', 'table-name' = 'orders', 'driver' = 'org.postgresql.Driver', 'lookup.cache' = 'PARTIAL');
INSERT INTO snk SELECT id FROM src;
