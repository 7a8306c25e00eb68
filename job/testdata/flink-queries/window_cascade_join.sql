-- a cascading window aggregation over a window join of two window aggregations: the join keeps its inputs' window_start and window_end (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT ws, we, COUNT(*) AS n, SUM(t) AS total FROM (SELECT a.k, a.ws, a.we, b.t FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) a JOIN (SELECT k, SUM(v) AS t, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) b ON a.k = b.k AND a.ws = b.ws AND a.we = b.we) GROUP BY ws, we;
