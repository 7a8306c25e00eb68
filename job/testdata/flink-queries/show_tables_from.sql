-- SHOW TABLES IN another database with a LIKE pattern
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

CREATE DATABASE d2;
CREATE TABLE d2.x1 (a INT) WITH ('connector' = 'blackhole');
CREATE TABLE d2.y1 (a INT) WITH ('connector' = 'blackhole');
CREATE VIEW d2.x2 AS SELECT k FROM events;
SHOW TABLES IN d2 LIKE 'x%';
