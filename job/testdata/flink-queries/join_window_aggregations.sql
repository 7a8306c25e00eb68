-- a window join of two window aggregations (Nexmark q8's shape) (order: any)
-- include: include/events_dims.sql

SELECT a.k, a.n, b.names, a.ws FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) a JOIN (SELECT k, COUNT(*) AS names, window_start, window_end FROM TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) b ON a.k = b.k AND a.ws = b.window_start AND a.we = b.window_end;
