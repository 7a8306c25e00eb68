-- JSON_ARRAYAGG in GROUP BY over BIGINT and STRING: NULLs absent by default
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, JSON_ARRAYAGG(v), JSON_ARRAYAGG(s) FROM events GROUP BY k;
