-- SHOW COLUMNS FROM a table with a LIKE pattern gives DESCRIBE rows
-- include: include/events_dims.sql

SHOW COLUMNS FROM events LIKE '%s';
