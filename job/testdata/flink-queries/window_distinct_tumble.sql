-- DISTINCT aggregates in a TUMBLE window aggregation, with FILTER, beside plain ones (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, window_start, window_end, COUNT(DISTINCT s), COUNT(DISTINCT v) FILTER (WHERE v > 2), SUM(DISTINCT v), AVG(DISTINCT m), MAX(DISTINCT d), COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
