-- a BROADCAST join hint is checked and ignored in streaming, as Flink does (result: final)
-- include: include/events_dims.sql

SELECT /*+ BROADCAST(d) */ e.k, d.name FROM events e JOIN dims d ON e.k = d.k;
