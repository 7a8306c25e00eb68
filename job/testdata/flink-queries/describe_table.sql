-- DESCRIBE of a table with a primary key, a computed column and a WATERMARK
-- include: include/events_dims.sql

CREATE TABLE t2 (k STRING, n BIGINT NOT NULL, c AS n + 1, ts TIMESTAMP(3), m DECIMAL(10, 2), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');
DESCRIBE t2;
