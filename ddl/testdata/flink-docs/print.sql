-- Source: https://nightlies.apache.org/flink/flink-docs-master/docs/connectors/table/print/
-- (apache/flink, docs/content/docs/connectors/table/print.md)
CREATE TABLE print_table (
  f0 INT,
  f1 INT,
  f2 STRING,
  f3 DOUBLE
) WITH (
  'connector' = 'print'
);
-- ====
CREATE TABLE print_table WITH ('connector' = 'print')
LIKE source_table (EXCLUDING ALL)
