-- ALTER TABLE SET and RESET options take effect: the table reads the other file
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

CREATE TABLE t (k STRING, name STRING, lvl INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/nowhere', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
ALTER TABLE t SET ('path' = '${DATA}/data/dims', 'format' = 'json');
ALTER TABLE t RESET ('csv.ignore-parse-errors');
SELECT k, lvl FROM t;
