-- SHOW CATALOGS with a created catalog
-- include: include/events_dims.sql

CREATE CATALOG c2 WITH ('type' = 'generic_in_memory');
SHOW CATALOGS;
