-- a scalar subquery in the WHERE of an aggregating query (result: final)
-- include: include/events_dims.sql

SELECT k, COUNT(*) AS n, SUM(v) AS total FROM events WHERE v > (SELECT AVG(v) FROM events) GROUP BY k;
