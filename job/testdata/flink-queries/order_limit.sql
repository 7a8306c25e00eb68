-- ORDER BY ... LIMIT: a global Top-N (updating)
-- include: include/events_dims.sql

SELECT k, v, ts FROM events ORDER BY v DESC, ts LIMIT 3;
