-- ALTER TABLE RENAME TO another name
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'blackhole');
ALTER TABLE t RENAME TO t2;
SHOW TABLES;
