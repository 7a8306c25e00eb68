-- NOT IN over a nullable column: unknown, so false, when the subquery holds a NULL (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE k NOT IN (SELECT k FROM dims WHERE lvl > 2);
