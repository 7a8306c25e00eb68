-- ALTER TABLE IF EXISTS of a table that does not exist does nothing
-- include: include/events_dims.sql

ALTER TABLE IF EXISTS nope SET ('a' = 'b');
SHOW TABLES;
