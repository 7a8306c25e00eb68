-- A parse error between two planning errors: all three are reported, in
-- the order of the file.
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, nme FROM src;
CREATE TABLE other (id BIGINT,) WITH ('connector' = 'datagen');
INSERT INTO snk SELECT id FROM src;
