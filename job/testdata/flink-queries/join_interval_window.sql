-- a window aggregation over an interval join's output (its rowtime passes through) (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE((SELECT e.ts, d.name FROM events e, dims d WHERE e.k = d.k AND e.ts BETWEEN d.ts - INTERVAL '5' SECOND AND d.ts + INTERVAL '5' SECOND), DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
