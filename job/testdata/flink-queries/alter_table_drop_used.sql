-- ALTER TABLE DROP of a column a computed column reads is refused
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), c AS a + 1) WITH ('connector' = 'blackhole');
ALTER TABLE t DROP a;
DESCRIBE t;
