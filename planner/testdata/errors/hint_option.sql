CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'print');
INSERT INTO snk /*+ OPTIONS('print-identifer' = 'x') */ SELECT id FROM src;
