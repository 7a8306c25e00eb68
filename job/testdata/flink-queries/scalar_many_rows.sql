-- a scalar subquery of more than one row: the job fails when run
-- include: include/events_dims.sql

SELECT k, (SELECT name FROM dims WHERE lvl > 4) AS nm FROM events;
