CREATE TABLE t2 WITH ('connector' = 'blackhole') LIKE missing;
