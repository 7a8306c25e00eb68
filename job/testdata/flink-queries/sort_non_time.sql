-- ORDER BY a column that is not a time attribute, without LIMIT
-- include: include/events_dims.sql

SELECT k, v FROM events ORDER BY v;
