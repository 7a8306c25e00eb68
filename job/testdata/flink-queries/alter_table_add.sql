-- ALTER TABLE ADD columns at positions, a PRIMARY KEY and a WATERMARK
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), c AS a + 1) WITH ('connector' = 'blackhole');
ALTER TABLE t ADD (d DOUBLE FIRST, e BIGINT AFTER b, PRIMARY KEY (a) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
DESCRIBE t;
