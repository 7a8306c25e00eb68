-- > ALL of a subquery (result: final)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v > ALL (SELECT lvl FROM dims WHERE lvl < 5);
