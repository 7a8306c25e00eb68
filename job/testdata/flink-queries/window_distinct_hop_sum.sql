-- beyond Flink: SUM(DISTINCT) in a HOP window aggregation, which Flink 2.2 fails to run (its sliced HOP retracts a SUM that cannot)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, window_start, window_end, SUM(DISTINCT v), AVG(DISTINCT m), COUNT(*) FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY k, window_start, window_end;
