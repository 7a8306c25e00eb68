-- DROP DATABASE CASCADE drops its tables and views, and the name is free again afterwards
CREATE DATABASE db1;
CREATE TABLE db1.events (
  k STRING, v BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
DROP DATABASE db1 CASCADE;
CREATE DATABASE db1;
CREATE TABLE db1.events (
  k STRING, name STRING
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT k, name FROM db1.events;
