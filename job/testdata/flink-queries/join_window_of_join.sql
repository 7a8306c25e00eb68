-- a window join of a window join (of two window aggregations) with a third window aggregation (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT ab.k, ab.n, ab.t, c.m, ab.ws FROM (SELECT a.k, a.n, b.t, a.ws, a.we FROM (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) a JOIN (SELECT k, SUM(v) AS t, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) b ON a.k = b.k AND a.ws = b.ws AND a.we = b.we) ab JOIN (SELECT MAX(v) AS m, window_start AS ws, window_end AS we FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end) c ON ab.ws = c.ws AND ab.we = c.we;
