-- SINGLE_VALUE called by name
-- include: include/events_dims.sql

SELECT k, SINGLE_VALUE(name) FROM dims WHERE lvl < 3 GROUP BY k;
