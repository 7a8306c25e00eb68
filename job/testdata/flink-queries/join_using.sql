-- JOIN ... USING: SELECT * lists the USING column once, first (order: any)
-- include: include/events_dims.sql

SELECT * FROM (SELECT k, v, s FROM events) e JOIN (SELECT k, name, lvl FROM dims) d USING (k);
