-- a LEFT JOIN with a changelog source (debezium-json: updates and a delete) on its right (result: final)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE versions (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/versions', 'format' = 'debezium-json');

SELECT e.k, e.v, v.name, v.lvl FROM events e LEFT JOIN versions v ON e.k = v.k;
