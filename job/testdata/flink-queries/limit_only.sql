-- LIMIT without ORDER BY: the first rows that arrive (insert-only)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v > 2 LIMIT 4;
