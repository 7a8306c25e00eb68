CREATE TABLE copy (id, name BIGINT) WITH ('connector' = 'blackhole') AS SELECT * FROM src;
