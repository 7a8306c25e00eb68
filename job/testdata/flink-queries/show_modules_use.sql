-- USE MODULES core, then SHOW FULL MODULES
-- include: include/events_dims.sql

USE MODULES core;
SHOW FULL MODULES;
