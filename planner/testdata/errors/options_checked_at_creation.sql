-- Options that the connector checks against the table's schema (datagen's
-- per-column bounds, Kafka's 'key.fields', a Kafka sink of several topics
-- without a 'topic' column, a filesystem table of a format it cannot keep in
-- files, a jdbc scan.partition.column the table lacks, the raw format on two
-- columns) are errors when planning, so
-- validate and explain report them, not only the run.
CREATE TABLE gen (k BIGINT, s STRING) WITH ('connector' = 'datagen',
  'fields.k.min' = '5', 'fields.k.max' = '1');
CREATE TABLE ok_gen (k BIGINT, s STRING) WITH ('connector' = 'datagen');
CREATE TABLE out1 (k BIGINT, s STRING) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'key.fields' = 'id',
  'value.format' = 'json');
CREATE TABLE out2 (k BIGINT, s STRING) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out2 SELECT k, s FROM gen;
INSERT INTO out1 SELECT k, s FROM ok_gen;
END;
CREATE TABLE out3 (k BIGINT, s STRING) WITH ('connector' = 'kafka', 'topic' = 'a;b',
  'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
INSERT INTO out3 SELECT k, s FROM ok_gen;
CREATE TABLE files (k BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/out',
  'format' = 'avro');
SELECT * FROM files;
CREATE TABLE db (k BIGINT, s STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://localhost:5432/db',
  'table-name' = 't', 'scan.partition.column' = 'id', 'scan.partition.num' = '2',
  'scan.partition.lower-bound' = '0', 'scan.partition.upper-bound' = '9');
SELECT * FROM db;
CREATE TABLE raw_in (k BIGINT, s STRING) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'raw');
SELECT * FROM raw_in;
CREATE TABLE raw_files (k BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/out',
  'format' = 'raw');
INSERT INTO raw_files SELECT k, s FROM ok_gen;
