-- rn = 1 over a rowtime with the row number in the output: a Top-1, not a deduplication
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, ts, rn FROM (SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM events) WHERE rn = 1;
