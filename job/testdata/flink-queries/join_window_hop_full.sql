-- a FULL window join of HOP windows (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.k AS dk, d.name, COALESCE(e.window_start, d.window_start) AS ws FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) e FULL JOIN TABLE(HOP(TABLE dims, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) d ON e.k = d.k AND e.window_start = d.window_start AND e.window_end = d.window_end;
