-- a window ANTI join: NOT EXISTS over a TUMBLE window table function of the same window (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, e.window_start, e.window_end FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) e WHERE NOT EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '10' SECOND)) d WHERE e.k = d.k AND e.window_start = d.window_start AND e.window_end = d.window_end);
