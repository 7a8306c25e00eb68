-- INTERSECT ALL of an aggregation: its updates retract and add the replicated rows (result: final)
-- include: include/events_dims.sql

SELECT k FROM (SELECT k, COUNT(*) AS n FROM events GROUP BY k) INTERSECT ALL SELECT k FROM dims;
