-- an inner join of two aggregations (both updating) (result: final)
-- include: include/events_dims.sql

SELECT a.k, a.cnt, b.names FROM (SELECT k, COUNT(*) AS cnt FROM events GROUP BY k) a JOIN (SELECT k, COUNT(name) AS names FROM dims GROUP BY k) b ON a.k = b.k;
