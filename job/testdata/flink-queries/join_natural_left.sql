-- NATURAL LEFT JOIN over two common columns (result: final)
-- include: include/events_dims.sql

SELECT * FROM (SELECT k, CAST(v AS INT) AS lvl, s FROM events) e NATURAL LEFT JOIN (SELECT k, lvl, name FROM dims) d;
