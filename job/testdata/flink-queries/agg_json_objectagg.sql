-- JSON_OBJECTAGG per group, both syntaxes (keys unique within a group, as Flink requires)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, JSON_OBJECTAGG(KEY CAST(SECOND(ts) AS STRING) VALUE v), JSON_OBJECTAGG(CAST(SECOND(ts) AS STRING) : s) FROM events GROUP BY k;
