-- CREATE TABLE AS with a column list: new columns first, a query column at another type, a WATERMARK
-- include: include/events_dims.sql

CREATE TABLE t (note STRING, v DOUBLE, cost AS v * 2, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'blackhole') AS SELECT k, v, ts FROM events;
DESCRIBE t;
