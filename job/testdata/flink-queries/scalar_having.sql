-- a scalar subquery in HAVING (result: final)
-- include: include/events_dims.sql

SELECT k, SUM(v) AS total FROM events GROUP BY k HAVING SUM(v) > (SELECT AVG(v) * 7 FROM events) AND COUNT(*) > 2;
