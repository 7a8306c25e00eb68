-- a correlated scalar subquery with an expression over its aggregates (result: final)
-- include: include/events_dims.sql

SELECT d.name, d.lvl FROM dims d WHERE d.lvl < (SELECT SUM(e.v) - 20 FROM events e WHERE e.k = d.k);
