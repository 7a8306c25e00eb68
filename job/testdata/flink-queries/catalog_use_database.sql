-- CREATE CATALOG (generic_in_memory), CREATE DATABASE, USE CATALOG and USE: names of tables and views created after them are qualified with the current catalog and database, a view reads the tables of the database it was created in, and qualified names reach any of them (result: final)
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory');
USE CATALOG c1;
CREATE DATABASE IF NOT EXISTS db1 COMMENT 'the first database';
CREATE DATABASE IF NOT EXISTS db1;
USE db1;
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE VIEW big AS SELECT k, v FROM events WHERE v > 2;
USE CATALOG default_catalog;
CREATE TABLE events (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');
CREATE DATABASE other;
USE other;
CREATE VIEW events AS SELECT k, lvl FROM default_database.events;
USE default_catalog.default_database;

SELECT b.k, b.v, e.name, o.lvl FROM c1.db1.big AS b JOIN events AS e ON b.k = e.k JOIN other.events AS o ON o.k = e.k;
