-- CREATE TABLE AS whose list of names leaves out a column of the query is refused
-- include: include/events_dims.sql

CREATE TABLE t (k, v) WITH ('connector' = 'blackhole') AS SELECT k, v, d FROM events;
DESCRIBE t;
