-- ARRAY_AGG in GROUP BY: every value in arrival order, NULLs included
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, ARRAY_AGG(v), ARRAY_AGG(s), ARRAY_AGG(d) FROM events GROUP BY k;
