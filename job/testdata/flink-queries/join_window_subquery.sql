-- a FULL window join of inputs written as Flink's window join page writes them, (SELECT * FROM TABLE(TUMBLE(...))) L (order: any)
-- include: include/events_dims.sql

SELECT L.k, L.v, R.k AS rk, R.name, COALESCE(L.window_start, R.window_start) AS window_start, COALESCE(L.window_end, R.window_end) AS window_end FROM (SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))) L FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '5' SECOND))) R ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
