-- Top-N over a monotonic updating input, the row number not output
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT s, mx FROM (SELECT s, mx, ROW_NUMBER() OVER (ORDER BY mx DESC) AS rn FROM (SELECT s, MAX(v) AS mx FROM events GROUP BY s)) WHERE rn <= 2;
