-- A table or view in a database that was not created is refused (Flink
-- refuses it too); the message says how to create it.
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory');
CREATE TABLE sales.orders (id BIGINT) WITH ('connector' = 'datagen');
CREATE VIEW c1.sales.v AS SELECT 1 AS one;
CREATE TABLE c2.sales.orders (id BIGINT) WITH ('connector' = 'datagen');
