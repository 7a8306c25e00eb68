-- a correlated scalar subquery: the rows with their key maximum (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v FROM events e WHERE e.v = (SELECT MAX(e2.v) FROM events e2 WHERE e2.k = e.k);
