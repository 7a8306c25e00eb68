-- Top-N over an updating input that is not monotonic (RetractableTopNFunction)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT k, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM (SELECT k, SUM(v) AS total FROM events GROUP BY k)) WHERE rn <= 2;
