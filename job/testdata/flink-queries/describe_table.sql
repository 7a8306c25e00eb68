-- DESCRIBE of a table with a primary key, a computed column and a WATERMARK
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

CREATE TABLE t2 (k STRING, n BIGINT NOT NULL, c AS n + 1, ts TIMESTAMP(3), m DECIMAL(10, 2), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');
DESCRIBE t2;
