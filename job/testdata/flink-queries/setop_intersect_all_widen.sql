-- INTERSECT ALL of two columns whose types widen to BIGINT (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events INTERSECT ALL SELECT k, lvl FROM dims;
