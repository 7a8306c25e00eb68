-- a window join of two window aggregations (Nexmark q8's shape) (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT a.k, a.n, b.names, a.ws FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) a JOIN (SELECT k, COUNT(*) AS names, window_start, window_end FROM TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) b ON a.k = b.k AND a.ws = b.window_start AND a.we = b.window_end;
