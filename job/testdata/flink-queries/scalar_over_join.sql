-- scalar subqueries over a join, two in one query (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name, (SELECT MIN(lvl) FROM dims) AS lo FROM events e JOIN dims d ON e.k = d.k WHERE e.v > (SELECT AVG(v) FROM events) AND d.lvl < (SELECT MAX(lvl) FROM dims);
