-- EXCEPT ALL of an aggregation against an insert-only input (result: final)
-- include: include/events_dims.sql

SELECT k, COUNT(*) AS n FROM events GROUP BY k EXCEPT ALL SELECT k, CAST(lvl AS BIGINT) FROM dims;
