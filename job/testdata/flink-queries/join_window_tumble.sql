-- a window join of two TUMBLE window table functions (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name, e.window_start, e.window_end FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) e JOIN TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '10' SECOND)) d ON e.k = d.k AND e.window_start = d.window_start AND e.window_end = d.window_end;
