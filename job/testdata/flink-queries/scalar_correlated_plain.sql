-- a correlated subquery without aggregate: SINGLE_VALUE per key (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, (SELECT d.name FROM dims d WHERE d.k = e.k AND d.lvl < 3) AS nm FROM events e WHERE e.v > 4;
