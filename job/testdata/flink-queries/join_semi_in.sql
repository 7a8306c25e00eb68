-- IN with a subquery: a semi join (order: any)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE k IN (SELECT k FROM dims WHERE lvl < 5) AND v > 2;
