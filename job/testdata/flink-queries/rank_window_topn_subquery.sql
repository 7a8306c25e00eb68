-- window Top-N over a window aggregation that reads (SELECT * FROM TABLE(TUMBLE(...))), as Flink's window Top-N page nests it (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC, cnt DESC) AS rownum FROM (SELECT window_start, window_end, k, SUM(v) AS total, COUNT(*) AS cnt FROM (SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))) GROUP BY window_start, window_end, k)) WHERE rownum <= 2;
