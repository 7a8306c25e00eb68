-- a window aggregation without keys (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT window_start, window_end, COUNT(*), SUM(v), AVG(d) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '15' SECOND)) GROUP BY window_start, window_end;
