-- ALL over an empty subquery is true (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v > ALL (SELECT lvl FROM dims WHERE lvl > 100) AND v > 6;
