-- UNNEST after a join, of an array built from both inputs (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, x FROM events e JOIN dims d ON e.k = d.k CROSS JOIN UNNEST(ARRAY[e.v, CAST(d.lvl AS BIGINT)]) AS u(x);
