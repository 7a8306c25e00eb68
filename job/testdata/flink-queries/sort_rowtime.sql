-- ORDER BY the rowtime without LIMIT: a temporal sort, rows in time order as the watermark passes them
-- include: include/events_dims.sql

SELECT k, v, CAST(ts AS STRING) AS t FROM events ORDER BY ts;
