CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO snk VALUES (NULL), (NULL);
