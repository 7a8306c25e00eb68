-- A statement that does not parse before its name (CREATE misspelt): any
-- table could be the one it meant to define, so no table or view is
-- reported unknown after it; other errors still are.
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CRATE TABLE events (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO events SELECT * FROM src;
INSERT INTO src SELECT id, nme FROM src;
