-- ALTER TABLE SET and RESET options take effect: the table reads the other file
-- include: include/events_dims.sql

CREATE TABLE t (k STRING, name STRING, lvl INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/nowhere', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
ALTER TABLE t SET ('path' = '${DATA}/data/dims', 'format' = 'json');
ALTER TABLE t RESET ('csv.ignore-parse-errors');
SELECT k, lvl FROM t;
