-- a join hint naming no input of the query is refused
-- include: include/events_dims.sql

SELECT /*+ SHUFFLE_MERGE(x) */ e.k, d.name FROM events e JOIN dims d ON e.k = d.k;
