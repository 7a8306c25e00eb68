-- CREATE TABLE AS with the query's column names only: the table has them in that order
-- include: include/events_dims.sql

CREATE TABLE t (d, k, v) WITH ('connector' = 'blackhole') AS SELECT k, v, d FROM events;
DESCRIBE t;
