-- a scalar subquery that is not an aggregate: at most one row or the job fails (result: final)
-- include: include/events_dims.sql

SELECT k, v, (SELECT name FROM dims WHERE lvl = 4) AS nm FROM events WHERE v > 6;
