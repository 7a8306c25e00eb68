-- Source: https://nightlies.apache.org/flink/flink-docs-master/docs/connectors/table/formats/json/
-- (apache/flink, docs/content/docs/connectors/table/formats/json.md)
CREATE TABLE user_behavior (
  user_id BIGINT,
  item_id BIGINT,
  category_id BIGINT,
  behavior STRING,
  ts TIMESTAMP(3)
) WITH (
 'connector' = 'kafka',
 'topic' = 'user_behavior',
 'properties.bootstrap.servers' = 'localhost:9092',
 'properties.group.id' = 'testGroup',
 'format' = 'json',
 'json.fail-on-missing-field' = 'false',
 'json.ignore-parse-errors' = 'true'
)
-- ====
CREATE TABLE user_behavior (
  col1 BIGINT,
  col2 VARCHAR
) WITH (
 'format' = 'json',
 -- (elided options filled in)
 'connector' = 'filesystem',
 'path' = '/tmp/user_behavior'
)
