CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '5');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id FROM src;
INSERT INTO snk SELECT id + 1 FROM src;
