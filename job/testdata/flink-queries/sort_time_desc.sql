-- ORDER BY the rowtime descending, without LIMIT
-- include: include/events_dims.sql

SELECT k, v FROM events ORDER BY ts DESC;
