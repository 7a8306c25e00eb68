-- CREATE TABLE AS that gives a query column a type it does not convert to is refused
-- include: include/events_dims.sql

CREATE TABLE t (k INT) WITH ('connector' = 'blackhole') AS SELECT k FROM events;
DESCRIBE t;
