-- an ORDER BY without LIMIT in a subquery is dropped
-- include: include/events_dims.sql

SELECT k, v FROM (SELECT k, v FROM events ORDER BY v) WHERE v > 5;
