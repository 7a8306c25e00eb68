-- ALL over a subquery with a NULL (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v >= ALL (SELECT CASE WHEN lvl = 0 THEN CAST(NULL AS INT) ELSE lvl END FROM dims);
