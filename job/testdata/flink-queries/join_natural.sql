-- NATURAL JOIN: the columns both inputs name are the join's keys (order: any)
-- include: include/events_dims.sql

SELECT * FROM (SELECT k, v FROM events) e NATURAL JOIN (SELECT k, name FROM dims) d;
