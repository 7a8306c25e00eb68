CREATE TABLE copy WITH ('connector' = 'blackhole') AS SELECT * FROM src;
