-- ALTER TABLE ADD of a column that exists is refused
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), c AS a + 1) WITH ('connector' = 'blackhole');
ALTER TABLE t ADD b INT;
DESCRIBE t;
