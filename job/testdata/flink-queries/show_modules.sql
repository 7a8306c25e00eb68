-- SHOW MODULES
-- include: include/events_dims.sql

SHOW MODULES;
