-- Kafka to Kafka and upsert-kafka in one job, exactly-once.
SET 'execution.checkpointing.interval' = '5s';
SET 'execution.checkpointing.dir' = 'file:///var/lib/streamsql/checkpoints';

CREATE TABLE events (
  `key`       STRING,
  payload     STRING,
  user_id     BIGINT,
  score       DOUBLE,
  `ts`        TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition` INT METADATA VIRTUAL,
  `offset`    BIGINT METADATA VIRTUAL,
  headers     MAP<STRING, BYTES> METADATA,
  WATERMARK FOR `ts` AS `ts` - INTERVAL '2' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-localhost:9092}',
  'properties.group.id' = 'fanout',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'key.format' = 'raw',
  'key.fields' = 'key',
  'value.format' = 'json',
  'value.json.ignore-parse-errors' = 'false',
  'value.fields-include' = 'EXCEPT_KEY'
);

CREATE TABLE scores (
  user_id BIGINT,
  score DOUBLE NOT NULL,
  band STRING,
  PRIMARY KEY (user_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'scores',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-localhost:9092}',
  'key.format' = 'json',
  'value.format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'fanout-scores'
);

CREATE TABLE audit WITH (
  'topic' = 'audit',
  'sink.semantic' = 'exactly-once'
) LIKE events (EXCLUDING ALL INCLUDING METADATA INCLUDING WATERMARKS OVERWRITING OPTIONS);

EXECUTE STATEMENT SET
BEGIN
  INSERT INTO scores
  SELECT COALESCE(user_id, -1), COALESCE(TRY_CAST(JSON_VALUE(payload, '$.score') AS DOUBLE), score, 0.0),
         CASE WHEN score IS DISTINCT FROM NULL AND score BETWEEN 0 AND 50 THEN 'low' ELSE 'high' END
  FROM events
  WHERE user_id IS NOT NULL;

  INSERT INTO audit (`key`, payload, user_id, score, headers)
  SELECT `key`, payload, user_id, score, headers FROM events /*+ OPTIONS('scan.startup.mode' = 'latest-offset') */
  WHERE headers['source'] IS NOT DISTINCT FROM X'6170'
  UNION ALL
  SELECT 'synthetic', '{}', CAST(-1 AS BIGINT), 0e0, MAP['source', X'00'];
END;
