-- Source: https://nightlies.apache.org/flink/flink-docs-master/docs/connectors/table/blackhole/
-- (apache/flink, docs/content/docs/connectors/table/blackhole.md)
CREATE TABLE blackhole_table (
  f0 INT,
  f1 INT,
  f2 STRING,
  f3 DOUBLE
) WITH (
  'connector' = 'blackhole'
);
-- ====
CREATE TABLE blackhole_table WITH ('connector' = 'blackhole')
LIKE source_table (EXCLUDING ALL)
