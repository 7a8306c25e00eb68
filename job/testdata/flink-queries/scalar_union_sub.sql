-- a scalar subquery that is a UNION: SINGLE_VALUE of its rows (result: final)
-- include: include/events_dims.sql

SELECT k, v, (SELECT name FROM dims WHERE lvl = 4 UNION ALL SELECT name FROM dims WHERE lvl = 40) AS nm FROM events WHERE v > 7;
