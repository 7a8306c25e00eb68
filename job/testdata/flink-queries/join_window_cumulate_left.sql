-- a LEFT window join of CUMULATE windows (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name, e.window_end FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) e LEFT JOIN TABLE(CUMULATE(TABLE dims, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) d ON e.k = d.k AND e.window_start = d.window_start AND e.window_end = d.window_end;
