-- JSON_VALUE RETURNING and the ON EMPTY, ON ERROR and WRAPPER clauses that say Flink's defaults, over JSON text built from each row
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
SELECT k, JSON_VALUE(j, '$.v' RETURNING INT), JSON_VALUE(j, '$.d' RETURNING DOUBLE NULL ON EMPTY NULL ON ERROR), JSON_VALUE(j, '$.s' RETURNING STRING NULL ON ERROR), JSON_VALUE(j, '$.missing' NULL ON EMPTY), JSON_VALUE(j, '$.o' RETURNING BOOLEAN), JSON_QUERY(j, '$.a' WITHOUT ARRAY WRAPPER NULL ON EMPTY NULL ON ERROR), JSON_QUERY(j, '$.a' RETURNING STRING WITHOUT WRAPPER), JSON_EXISTS(j, '$.s' FALSE ON ERROR) FROM (SELECT k, CONCAT('{"v": ', COALESCE(CAST(v AS STRING), 'null'), ', "d": ', COALESCE(CAST(d AS STRING), 'null'), ', "s": "', COALESCE(s, ''), '", "o": ', COALESCE(LOWER(CAST(v > 2 AS STRING)), 'null'), ', "a": [', COALESCE(CAST(v AS STRING), ''), ']}') AS j FROM events);
