CREATE TABLE copy (id BIGINT) WITH ('connector' = 'blackhole') AS SELECT * FROM src;
