-- SHOW DATABASES NOT ILIKE leaves out the names the pattern matches in any case
-- include: include/events_dims.sql

CREATE DATABASE Extra;
CREATE DATABASE other;
SHOW DATABASES NOT ILIKE 'E%';
