-- a FULL JOIN of an aggregation (updating) with an insert-only input (result: final)
-- include: include/events_dims.sql

SELECT t.k, t.total, d.name FROM (SELECT k, SUM(v) AS total FROM events GROUP BY k) t FULL JOIN dims d ON t.k = d.k;
