-- FULL JOIN ... USING of an aggregation: the USING column is COALESCE of both inputs' (result: final)
-- include: include/events_dims.sql

SELECT * FROM (SELECT k, SUM(v) AS total FROM events GROUP BY k) t FULL JOIN (SELECT k, name FROM dims) d USING (k);
