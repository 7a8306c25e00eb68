-- INTERSECT of an aggregation with an insert-only input (result: final)
-- include: include/events_dims.sql

SELECT k, COUNT(*) AS n FROM events GROUP BY k INTERSECT SELECT k, CAST(lvl AS BIGINT) FROM dims;
