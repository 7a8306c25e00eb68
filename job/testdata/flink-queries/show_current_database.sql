-- SHOW CURRENT DATABASE after USE
-- include: include/events_dims.sql

CREATE DATABASE d2;
USE d2;
SHOW CURRENT DATABASE;
