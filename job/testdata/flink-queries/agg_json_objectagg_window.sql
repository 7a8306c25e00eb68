-- JSON_OBJECTAGG in a window aggregation (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT window_start, k, JSON_OBJECTAGG(KEY CAST(SECOND(ts) AS STRING) VALUE v) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k;
