-- a cascading window aggregation over a UNION ALL of two window aggregations of the same windows (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT ws, we, COUNT(*) AS n, SUM(c) AS total FROM (SELECT window_start AS ws, window_end AS we, SUM(v) AS c FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end UNION ALL SELECT window_start, window_end, SUM(v) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY s, window_start, window_end) GROUP BY ws, we;
