-- the current catalog cannot be dropped
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory', 'default-database' = 'main');
USE CATALOG c1;
DROP CATALOG c1;
CREATE TABLE events (
  k STRING, v BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k FROM c1.main.events;
