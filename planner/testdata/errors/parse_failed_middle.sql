-- Failed statements in the middle of valid ones: a CREATE VIEW (and a
-- view over it), and a DROP whose table is then created again. Only the
-- parse errors and the independent unknown table are reported.
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
CREATE VIEW big AS SELECT id, name FROM src WHERE id >;
INSERT INTO snk SELECT * FROM big;
CREATE VIEW bigger AS SELECT * FROM big WHERE id > 10;
INSERT INTO snk SELECT * FROM bigger;
DROP TABLE snk now;
CREATE TABLE snk (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT * FROM src;
INSERT INTO nowhere SELECT * FROM src;
