-- a scalar subquery in an aggregating SELECT list: each key's share of all rows (result: final)
-- include: include/events_dims.sql

SELECT k, COUNT(*) * 100 / (SELECT COUNT(*) FROM events) AS pct, SUM(v) AS total FROM events GROUP BY k;
