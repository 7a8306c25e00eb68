-- a scalar subquery over no rows is NULL (result: final)
-- include: include/events_dims.sql

SELECT k, v, (SELECT MAX(v) FROM events WHERE v > 100) AS top FROM events WHERE v > 7;
