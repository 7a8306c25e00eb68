-- SHOW CREATE TABLE of every column kind, a WATERMARK, a two-column PRIMARY KEY, COMMENT, PARTITIONED BY and options in another order
-- include: include/events_dims.sql

CREATE TABLE t (k STRING COMMENT 'the key', n INT NOT NULL, m DECIMAL(10, 2), b BYTES, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3), arr ARRAY<INT>, r ROW<a INT, s STRING>, mp MAP<STRING, BIGINT>, c AS n + 1, p AS PROCTIME(), fp STRING METADATA FROM 'file.path' VIRTUAL, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (k, n) NOT ENFORCED) COMMENT 'a table' PARTITIONED BY (m) WITH ('path' = '/tmp/x', 'connector' = 'filesystem', 'format' = 'json');
SHOW CREATE TABLE t;
