-- ORDER BY the window_time of a window aggregation
-- include: include/events_dims.sql

SELECT CAST(window_start AS STRING) AS ws, n FROM (SELECT window_start, window_time, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, window_time) ORDER BY window_time;
