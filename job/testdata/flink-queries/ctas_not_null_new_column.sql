-- CREATE TABLE AS with a NOT NULL column the query does not fill is refused
-- include: include/events_dims.sql

CREATE TABLE t (note STRING NOT NULL) WITH ('connector' = 'blackhole') AS SELECT k FROM events;
DESCRIBE t;
