-- Top-N over ties in the sort key: later rows of a tie rank after earlier ones
CREATE TABLE ticks (
  k STRING, v BIGINT, p BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/ticks', 'format' = 'json');

SELECT * FROM (SELECT k, v, p, ROW_NUMBER() OVER (PARTITION BY p ORDER BY ts DESC) AS rn FROM ticks) WHERE rn <= 2;
