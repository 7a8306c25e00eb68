-- The CREATE TABLE does not parse (a ')' is missing), so orders is not
-- defined: the statements that use it must not report it as unknown.
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, amount DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, amount FROM orders;
CREATE TABLE copy LIKE orders;
INSERT INTO copy SELECT * FROM snk;
DROP TABLE orders;
