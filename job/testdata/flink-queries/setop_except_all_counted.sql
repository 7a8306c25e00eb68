-- a GROUP BY over EXCEPT ALL counts the rows it replicates (result: final)
-- include: include/events_dims.sql

SELECT k, COUNT(*) AS n FROM (SELECT k FROM events EXCEPT ALL SELECT k FROM dims) GROUP BY k;
