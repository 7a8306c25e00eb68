-- ALTER TABLE DROP columns and the PRIMARY KEY
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), x BIGINT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'blackhole');
ALTER TABLE t DROP (b, x);
ALTER TABLE t DROP PRIMARY KEY;
DESCRIBE t;
