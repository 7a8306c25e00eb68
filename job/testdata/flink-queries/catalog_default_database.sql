-- the 'default-database' option of a generic_in_memory catalog is current after USE CATALOG, DROP CATALOG IF EXISTS of another catalog and DROP DATABASE IF EXISTS of a missing one do nothing
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory', 'default-database' = 'main');
CREATE CATALOG IF NOT EXISTS c1 WITH ('type' = 'generic_in_memory');
CREATE CATALOG c2 WITH ('type' = 'generic_in_memory');
DROP CATALOG IF EXISTS c2;
DROP CATALOG IF EXISTS c3;
DROP DATABASE IF EXISTS c1.nowhere;
USE CATALOG c1;
CREATE TABLE events (
  k STRING, v BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
USE CATALOG default_catalog;

SELECT k, v FROM c1.main.events WHERE v > 3;
