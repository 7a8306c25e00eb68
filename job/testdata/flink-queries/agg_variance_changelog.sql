-- VAR_POP and STDDEV_SAMP over a changelog (debezium-json: updates and a delete retract)
CREATE TABLE versions (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/versions', 'format' = 'debezium-json');

SELECT COUNT(*), VAR_POP(lvl), VAR_SAMP(lvl), STDDEV_POP(lvl), STDDEV_SAMP(lvl) FROM versions;
