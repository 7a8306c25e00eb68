-- DISTINCT aggregates in a SESSION window aggregation, whose sessions merge (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, window_start, window_end, COUNT(DISTINCT s), SUM(DISTINCT v), COUNT(DISTINCT v) FILTER (WHERE v > 3), COUNT(*) FROM TABLE(SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end;
