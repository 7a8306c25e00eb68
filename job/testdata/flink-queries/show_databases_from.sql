-- SHOW DATABASES FROM another catalog
-- include: include/events_dims.sql

CREATE CATALOG c2 WITH ('type' = 'generic_in_memory');
CREATE DATABASE c2.sales;
SHOW DATABASES FROM c2;
