-- a comma join whose key is in WHERE, a filter on one input, a NULL key matching nothing (order: any)
-- include: include/events_dims.sql

SELECT e.k, d.name, e.s FROM events e, dims d WHERE e.k = d.k AND d.lvl < 5 AND e.s <> 'z';
