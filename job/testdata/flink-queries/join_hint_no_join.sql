-- a join hint on a query without a join naming its input is ignored (result: final)
-- include: include/events_dims.sql

SELECT /*+ BROADCAST(d) */ k FROM events d;
