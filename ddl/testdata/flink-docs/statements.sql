-- Sources (apache/flink, docs/content/docs/dev/table/sql/):
--   https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/set/      (set.md)
--   https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/reset/    (reset.md)
--   https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/insert/   (insert.md)
--   https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/explain/  (explain.md)
--   https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/create/   (create.md)
-- set.md
SET 'table.planner' = 'blink';
SET;
-- ====
-- set.md, Flink 1.13 form
SET table.planner = blink;
-- ====
-- reset.md
RESET 'table.planner';
RESET;
-- ====
-- insert.md
CREATE TABLE Orders (`user` BIGINT, product STRING, amount INT) WITH ('connector' = 'datagen'); -- (elided options filled in)
CREATE TABLE RubberOrders(product STRING, amount INT) WITH ('connector' = 'print'); -- (elided options filled in)
INSERT INTO RubberOrders SELECT product, amount FROM Orders WHERE product LIKE '%Rubber%';
-- ====
-- insert.md
CREATE TABLE country_page_view (user STRING, cnt INT, date STRING, country STRING)
PARTITIONED BY (date, country)
WITH ('connector' = 'filesystem', 'path' = '/tmp/country_page_view', 'format' = 'csv'); -- (elided options filled in)
CREATE TABLE page_view_source (user STRING, cnt INT, country STRING) WITH ('connector' = 'datagen') -- (the docs' source, not shown there)
-- ====
-- insert.md
INSERT INTO country_page_view PARTITION (date='2019-8-30', country='China')
  SELECT user, cnt FROM page_view_source;
-- ====
-- insert.md
INSERT INTO country_page_view PARTITION (date='2019-8-30')
  SELECT user, cnt, country FROM page_view_source;
-- ====
-- expect-unsupported: INSERT OVERWRITE
INSERT OVERWRITE country_page_view PARTITION (date='2019-8-30', country='China')
  SELECT user, cnt FROM page_view_source;
-- ====
-- expect-unsupported: INSERT OVERWRITE
INSERT OVERWRITE country_page_view PARTITION (date='2019-8-30')
  SELECT user, cnt, country FROM page_view_source;
-- ====
-- insert.md
INSERT INTO country_page_view PARTITION (date='2019-8-30', country='China') (user)
  SELECT user FROM page_view_source;
-- ====
-- insert.md
CREATE TABLE students (name STRING, age INT, gpa DECIMAL(3, 2)) WITH ('connector' = 'print'); -- (elided options filled in)

INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);
-- ====
-- insert.md (statement set, SQL CLI form)
EXECUTE STATEMENT SET
BEGIN
  INSERT INTO RubberOrders SELECT product, amount FROM Orders WHERE product LIKE '%Rubber%';
  INSERT INTO GlassOrders SELECT product, amount FROM Orders WHERE product LIKE '%Glass%';
END;
-- ====
-- explain.md
CREATE TABLE MyTable1 (`count` bigint, word VARCHAR(256)) WITH ('connector' = 'datagen');
CREATE TABLE MyTable2 (`count` bigint, word VARCHAR(256)) WITH ('connector' = 'datagen');
EXPLAIN PLAN FOR SELECT `count`, word FROM MyTable1 WHERE word LIKE 'F%'
UNION ALL
SELECT `count`, word FROM MyTable2;
EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, JSON_EXECUTION_PLAN SELECT `count`, word FROM MyTable1
WHERE word LIKE 'F%'
UNION ALL
SELECT `count`, word FROM MyTable2;
-- ====
-- create.md
CREATE TABLE MyTable (
  `user_id` BIGINT,
  `name` STRING,
  `timestamp` TIMESTAMP_LTZ(3) METADATA    -- use column name as metadata key
) WITH (
  'connector' = 'kafka' -- (elided options removed)
);
-- ====
-- create.md
CREATE TABLE MyTable (
  `user_id` BIGINT,
  `name` STRING,
  `timestamp` BIGINT METADATA    -- cast the timestamp as BIGINT
) WITH (
  'connector' = 'kafka' -- (elided options removed)
);
-- ====
-- create.md
CREATE TABLE MyTable (
  `timestamp` BIGINT METADATA,       -- part of the query-to-sink schema
  `offset` BIGINT METADATA VIRTUAL,  -- not part of the query-to-sink schema
  `user_id` BIGINT,
  `name` STRING -- (doc typo fixed: trailing comma removed)
) WITH (
  'connector' = 'kafka' -- (elided options removed)
);
-- ====
-- create.md
CREATE TABLE MyTable (
  `user_id` BIGINT,
  `price` DOUBLE,
  `quantity` DOUBLE,
  `cost` AS price * quantity  -- evaluate expression and supply the result to queries
) WITH (
  'connector' = 'kafka' -- (elided options removed)
);
-- ====
-- create.md
CREATE TABLE Orders (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3),
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka'); -- (elided options filled in)
-- ====
-- create.md
CREATE TABLE Orders (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3)
) WITH ( 
    'connector' = 'kafka',
    'scan.startup.mode' = 'earliest-offset'
);

CREATE TABLE Orders_with_watermark (
    -- Add watermark definition
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND 
) WITH (
    -- Overwrite the startup-mode
    'scan.startup.mode' = 'latest-offset'
)
LIKE Orders;
-- ====
-- create.md
-- A source table stored in a filesystem
CREATE TABLE Orders_in_file (
    `user` BIGINT,
    product STRING,
    order_time_string STRING,
    order_time AS to_timestamp(order_time_string)
    
)
PARTITIONED BY (`user`) 
WITH ( 
    'connector' = 'filesystem',
    'path' = '...'
);

-- A corresponding table we want to store in kafka
CREATE TABLE Orders_in_kafka (
    -- Add watermark definition
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND 
) WITH (
    'connector' = 'kafka' -- (elided options removed)
)
LIKE Orders_in_file (
    -- Exclude everything besides the computed columns which we need to generate the watermark for.
    -- We do not want to have the partitions or filesystem options as those do not apply to kafka. 
    EXCLUDING ALL
    INCLUDING GENERATED
);
-- ====
-- create.md
CREATE TABLE my_ctas_table
WITH (
    'connector' = 'kafka' -- (elided options removed)
)
AS SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;
-- ====
-- create.md
CREATE TABLE my_ctas_table (
    id BIGINT,
    name STRING,
    age INT
) WITH (
    'connector' = 'kafka' -- (elided options removed)
);
 
INSERT INTO my_ctas_table SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;
-- ====
-- create.md
REPLACE TABLE my_rtas_table
WITH (
    'connector' = 'kafka'
)
AS SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;
-- ====
CREATE OR REPLACE TABLE my_rtas_table
WITH (
    'connector' = 'kafka'
)
AS SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;
-- ====
CREATE CATALOG catalog1 WITH ('type' = 'generic_in_memory');
-- ====
USE CATALOG catalog1;
-- ====
CREATE DATABASE IF NOT EXISTS db1 COMMENT 'a database';
-- ====
USE db1;
-- ====
USE CATALOG default_catalog;
-- ====
DROP DATABASE IF EXISTS catalog1.db1 CASCADE;
-- ====
DROP CATALOG IF EXISTS catalog1;
-- ====
-- expect-planner-unsupported: CREATE FUNCTION
CREATE TEMPORARY FUNCTION IF NOT EXISTS my_udf AS 'com.example.MyUdf' LANGUAGE JAVA;
-- ====
-- create_function.md
DROP TEMPORARY FUNCTION my_udf;
