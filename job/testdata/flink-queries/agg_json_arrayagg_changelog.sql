-- JSON_ARRAYAGG over a changelog (debezium-json): a retraction removes its value
CREATE TABLE versions (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/versions', 'format' = 'debezium-json');

SELECT JSON_ARRAYAGG(name), JSON_ARRAYAGG(lvl) FROM versions;
