-- LOAD MODULE core when it is loaded
-- include: include/events_dims.sql

LOAD MODULE core;
SHOW MODULES;
