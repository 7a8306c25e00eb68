-- SHOW CURRENT CATALOG after USE CATALOG
-- include: include/events_dims.sql

CREATE CATALOG c2 WITH ('type' = 'generic_in_memory');
USE CATALOG c2;
SHOW CURRENT CATALOG;
