-- a scalar subquery in WHERE: rows above the average as it changes (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v > (SELECT AVG(v) FROM events);
