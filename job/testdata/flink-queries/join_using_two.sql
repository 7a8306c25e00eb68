-- JOIN ... USING two columns, one of them renamed in a subquery (order: any)
-- include: include/events_dims.sql

SELECT k, lvl, v, name FROM (SELECT k, v, CAST(v AS INT) AS lvl FROM events) e JOIN dims USING (k, lvl);
