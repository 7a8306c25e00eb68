-- SHUFFLE_HASH and NEST_LOOP join hints are ignored in streaming (result: final)
-- include: include/events_dims.sql

SELECT /*+ SHUFFLE_HASH(e), NEST_LOOP(d) */ e.k, d.name FROM events e JOIN dims d ON e.k = d.k;
