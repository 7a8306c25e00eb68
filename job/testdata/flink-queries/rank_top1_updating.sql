-- Top-1 over a monotonic updating input (FastTop1Function)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT k, s, cnt, ROW_NUMBER() OVER (PARTITION BY k ORDER BY cnt DESC) AS rn FROM (SELECT k, s, COUNT(*) AS cnt FROM events GROUP BY k, s)) WHERE rn <= 1;
