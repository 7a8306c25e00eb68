-- Catalog and database statements that fail: each error at its place,
-- and the statements after them are not reported for their consequences.
CREATE CATALOG hive WITH ('type' = 'hive', 'hive-conf-dir' = '/opt/hive/conf');
CREATE CATALOG mem WITH ('default-database' = 'main');
CREATE CATALOG mem2 WITH ('type' = 'generic_in_memory', 'default-databse' = 'main');
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory');
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory');
CREATE DATABASE c1.sales;
CREATE DATABASE c1.sales;
CREATE DATABASE c9.sales;
USE CATALOG c2;
USE c1.sale;
USE c1.sales;
DROP DATABASE sales;
DROP DATABASE default_catalog.default_database;
