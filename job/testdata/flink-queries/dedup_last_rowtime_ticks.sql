-- deduplication keeping the last row by event time, with rows of equal time
CREATE TABLE ticks (
  k STRING, v BIGINT, p BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/ticks', 'format' = 'json');

SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k, p ORDER BY ts DESC) AS rn FROM ticks) WHERE rn = 1;
