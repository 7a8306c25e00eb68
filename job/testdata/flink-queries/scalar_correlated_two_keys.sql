-- a correlated subquery related by two equalities (result: final)
-- include: include/events_dims.sql

SELECT d.name, (SELECT SUM(e.v) FROM events e WHERE e.k = d.k AND e.s = CASE WHEN d.lvl > 2 THEN 'x' ELSE 'y' END) AS total FROM dims d;
