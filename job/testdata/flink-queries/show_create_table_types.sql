-- SHOW CREATE TABLE of the other types and a named PRIMARY KEY
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

CREATE TABLE t (a VARCHAR(10), b CHAR(3), d DOUBLE, f FLOAT, bo BOOLEAN, dt DATE, tm TIME, ti TINYINT, si SMALLINT, bi BIGINT, vb VARBINARY(5), bn BINARY(2), ts6 TIMESTAMP(6), c2 AS UPPER(a) || 'x', CONSTRAINT pk PRIMARY KEY (bi) NOT ENFORCED) WITH ('connector' = 'blackhole');
SHOW CREATE TABLE t;
