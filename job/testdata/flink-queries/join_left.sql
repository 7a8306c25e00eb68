-- a LEFT JOIN: rows padded until their first match (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name FROM events e LEFT JOIN dims d ON e.k = d.k;
