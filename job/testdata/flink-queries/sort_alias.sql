-- ORDER BY the rowtime by its alias and then by position
-- include: include/events_dims.sql

SELECT k AS key, v, ts AS tm FROM events WHERE v < 4 ORDER BY tm, 2;
