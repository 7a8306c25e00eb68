-- a correlated COUNT is 0 where no row matches (result: final)
-- include: include/events_dims.sql

SELECT d.name, (SELECT COUNT(*) FROM events e WHERE e.k = d.k AND e.v > 4) AS n FROM dims d;
