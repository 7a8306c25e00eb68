-- SHOW TABLES NOT LIKE
-- include: include/events_dims.sql

SHOW TABLES NOT LIKE 'e%';
