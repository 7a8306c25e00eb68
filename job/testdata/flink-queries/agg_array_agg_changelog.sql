-- ARRAY_AGG over a changelog (debezium-json): an update or delete removes its old value
CREATE TABLE versions (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/versions', 'format' = 'debezium-json');

SELECT ARRAY_AGG(name), ARRAY_AGG(lvl) FROM versions;
