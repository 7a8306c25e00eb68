-- an inner join of two insert-only inputs on a key with a residual condition (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name FROM events e JOIN dims d ON e.k = d.k AND e.v > d.lvl;
