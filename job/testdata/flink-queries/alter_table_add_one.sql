-- ALTER TABLE ADD one column, last
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), c AS a + 1) WITH ('connector' = 'blackhole');
ALTER TABLE t ADD f STRING COMMENT 'new';
DESCRIBE t;
