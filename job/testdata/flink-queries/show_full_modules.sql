-- SHOW FULL MODULES
-- include: include/events_dims.sql

SHOW FULL MODULES;
