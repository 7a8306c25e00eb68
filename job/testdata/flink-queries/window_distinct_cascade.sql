-- a COUNT DISTINCT in a window aggregation over a window aggregation (a cascade: the outer one counts the distinct values of the inner results) (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT window_start, window_end, COUNT(DISTINCT c), SUM(c) FROM (SELECT k, window_start, window_end, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end) GROUP BY window_start, window_end;
