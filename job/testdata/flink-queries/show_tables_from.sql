-- SHOW TABLES IN another database with a LIKE pattern
-- include: include/events_dims.sql

CREATE DATABASE d2;
CREATE TABLE d2.x1 (a INT) WITH ('connector' = 'blackhole');
CREATE TABLE d2.y1 (a INT) WITH ('connector' = 'blackhole');
CREATE VIEW d2.x2 AS SELECT k FROM events;
SHOW TABLES IN d2 LIKE 'x%';
