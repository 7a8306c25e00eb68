-- a window join of a window aggregation with a cascading one (Nexmark q5's shape): insert-only, per window (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT a.k, a.n, a.ws FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) a JOIN (SELECT MAX(n) AS maxn, ws, we FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) GROUP BY ws, we) b ON a.ws = b.ws AND a.we = b.we AND a.n >= b.maxn;
