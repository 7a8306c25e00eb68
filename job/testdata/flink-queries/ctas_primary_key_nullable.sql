-- CREATE TABLE AS with a PRIMARY KEY over a nullable column is refused
-- include: include/events_dims.sql

CREATE TABLE t (PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole') AS SELECT k, COUNT(*) AS n FROM events GROUP BY k;
DESCRIBE t;
