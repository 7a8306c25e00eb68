-- DROP DATABASE of a database that holds a table is refused without CASCADE (RESTRICT is the default)
CREATE DATABASE db1;
CREATE TABLE db1.events (
  k STRING, v BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
DROP DATABASE db1;

SELECT k FROM db1.events;
