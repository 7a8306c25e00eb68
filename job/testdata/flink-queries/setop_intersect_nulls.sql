-- INTERSECT matches NULL with NULL (result: final)
-- include: include/events_dims.sql

SELECT s FROM events INTERSECT SELECT CASE WHEN lvl > 3 THEN CAST(NULL AS STRING) ELSE 'x' END FROM dims;
