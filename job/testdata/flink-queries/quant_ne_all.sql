-- <> ALL is NOT IN: an anti join (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE k <> ALL (SELECT k FROM dims WHERE k IS NOT NULL AND lvl < 3);
