-- EXCEPT of an aggregation: rows leave and come back as the counts pass the right input's (result: final)
-- include: include/events_dims.sql

SELECT k, COUNT(*) AS n FROM events GROUP BY k EXCEPT SELECT k, CAST(lvl AS BIGINT) FROM dims;
