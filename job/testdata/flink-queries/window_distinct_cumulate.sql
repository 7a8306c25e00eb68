-- DISTINCT aggregates in a CUMULATE window aggregation without grouping keys (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT window_start, window_end, COUNT(DISTINCT k), COUNT(DISTINCT s), SUM(DISTINCT v), MIN(v) FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end;
