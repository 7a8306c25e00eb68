-- CREATE TABLE AS with a column list: new columns first, a query column at another type, a WATERMARK
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

CREATE TABLE t (note STRING, v DOUBLE, cost AS v * 2, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'blackhole') AS SELECT k, v, ts FROM events;
DESCRIBE t;
