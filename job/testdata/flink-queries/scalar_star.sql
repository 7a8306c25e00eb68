-- SELECT star leaves the subquery value out (result: final)
-- include: include/events_dims.sql

SELECT * FROM dims WHERE lvl > (SELECT AVG(lvl) FROM dims);
