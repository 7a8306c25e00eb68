-- CREATE TABLE AS with a PRIMARY KEY over a NOT NULL column of the query
-- include: include/events_dims.sql

CREATE TABLE t (PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole') AS SELECT COALESCE(k, '') AS k, COUNT(*) AS n FROM events GROUP BY COALESCE(k, '');
DESCRIBE t;
