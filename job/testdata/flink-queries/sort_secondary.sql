-- ORDER BY a time attribute and more columns: rows of one time sorted by the others (NULL first ascending, last descending, unless NULLS says otherwise)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  t10 AS CAST(FLOOR(ts TO MINUTE) AS TIMESTAMP(3)),
  WATERMARK FOR t10 AS t10 - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, s FROM events ORDER BY t10, v DESC, s NULLS LAST, k;
