-- < ANY of a subquery (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v < ANY (SELECT lvl FROM dims);
