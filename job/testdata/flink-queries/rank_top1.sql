-- Top-1 with the row number (FastTop1Function over inserts)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT k, v, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM events) WHERE rn <= 1;
