-- SHOW TABLES lists the tables and views of the current database, sorted
-- include: include/events_dims.sql

CREATE VIEW w AS SELECT k FROM events;
SHOW TABLES;
