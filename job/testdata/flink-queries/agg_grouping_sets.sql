-- GROUP BY GROUPING SETS, combined with a plain grouping column
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, s, CHAR_LENGTH(s) AS len, MAX(v) FROM events GROUP BY k, GROUPING SETS ((s), (CHAR_LENGTH(s)), ());
