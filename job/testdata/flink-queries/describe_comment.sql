-- DESCRIBE adds a comment column when a column has a comment
-- include: include/events_dims.sql

CREATE TABLE t (k STRING COMMENT 'the key') WITH ('connector' = 'blackhole') AS SELECT k, v FROM events;
DESC t;
