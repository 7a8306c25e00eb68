-- OVER RANGE UNBOUNDED PRECEDING over processing time: each row aggregated as it arrives
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3), pt AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, SUM(v) OVER w, COUNT(*) OVER w, MIN(s) OVER w FROM events WINDOW w AS (PARTITION BY k ORDER BY pt);
