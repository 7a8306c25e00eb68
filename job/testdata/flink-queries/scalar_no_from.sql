-- a scalar subquery in a SELECT without FROM (result: final)
-- include: include/events_dims.sql

SELECT (SELECT MAX(v) FROM events) AS top, (SELECT COUNT(*) FROM dims) AS n;
