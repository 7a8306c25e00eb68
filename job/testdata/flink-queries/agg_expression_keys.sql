-- grouping by expressions, and expressions over aggregates
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT UPPER(k) AS uk, CHAR_LENGTH(s) AS len, COUNT(*) + 1, SUM(v) * 2, CAST(AVG(d) AS DECIMAL(10, 3)) FROM events GROUP BY UPPER(k), CHAR_LENGTH(s);
