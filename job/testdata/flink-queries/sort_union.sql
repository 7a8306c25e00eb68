-- ORDER BY the rowtime of a UNION ALL
-- include: include/events_dims.sql

SELECT k, v, ts FROM events WHERE v > 5 UNION ALL SELECT k, CAST(lvl AS BIGINT), ts FROM dims ORDER BY ts;
