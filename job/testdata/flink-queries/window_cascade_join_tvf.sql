-- a window aggregation over a window join of two TUMBLE window table functions, grouped by the join's window_start and window_end (order: any)
-- include: include/events_dims.sql

SELECT window_start, window_end, COUNT(*) AS pairs, MAX(e.v) AS maxv FROM (SELECT e.k, e.v, e.window_start, e.window_end FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) e JOIN TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '10' SECOND)) d ON e.k = d.k AND e.window_start = d.window_start AND e.window_end = d.window_end) e GROUP BY window_start, window_end;
