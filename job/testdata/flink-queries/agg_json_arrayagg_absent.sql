-- JSON_ARRAYAGG with its default ABSENT ON NULL written out, over a GROUP BY
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
SELECT k, JSON_ARRAYAGG(s ABSENT ON NULL) FROM events GROUP BY k;
