-- a scalar subquery in the SELECT list: a join with the one-row aggregate (result: final)
-- include: include/events_dims.sql

SELECT k, v, (SELECT MAX(v) FROM events) AS top FROM events WHERE v > 5;
