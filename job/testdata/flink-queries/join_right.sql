-- a RIGHT JOIN with a residual condition: dims without a matching event are padded (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.k AS dk, d.name FROM events e RIGHT JOIN dims d ON e.k = d.k AND e.v > d.lvl;
