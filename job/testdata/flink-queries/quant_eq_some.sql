-- = SOME is IN (order: any)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE k = SOME (SELECT k FROM dims WHERE lvl < 3) AND v > 3;
