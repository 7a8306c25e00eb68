-- Top-N over an updating input without the row number
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT s, total FROM (SELECT s, total, ROW_NUMBER() OVER (ORDER BY total ASC) AS rn FROM (SELECT s, SUM(v) AS total FROM events GROUP BY s)) WHERE rn <= 2;
