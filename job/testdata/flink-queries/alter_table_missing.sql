-- ALTER TABLE of a table that does not exist is refused
-- include: include/events_dims.sql

ALTER TABLE nope SET ('a' = 'b');
SHOW TABLES;
