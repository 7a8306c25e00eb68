-- ALTER TABLE RENAME a column
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'blackhole');
ALTER TABLE t RENAME b TO name;
DESCRIBE t;
