-- CREATE TABLE AS with a PRIMARY KEY over a column the query does not fill is refused
-- include: include/events_dims.sql

CREATE TABLE t (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole') AS SELECT k FROM events;
DESCRIBE t;
