-- DISTINCT aggregates in a HOP window aggregation: a value seen in two slices of a window counts once (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, window_start, window_end, COUNT(DISTINCT s), COUNT(DISTINCT v), MAX(DISTINCT d), COUNT(*) FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY k, window_start, window_end;
