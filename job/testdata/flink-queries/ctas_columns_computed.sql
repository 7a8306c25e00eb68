-- CREATE TABLE AS with a new physical column and a computed column over it
-- include: include/events_dims.sql

CREATE TABLE t (x INT, y AS x + 1) WITH ('connector' = 'blackhole') AS SELECT k FROM events;
DESCRIBE t;
