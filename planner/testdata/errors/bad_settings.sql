SET 'execution.checkpointing.intervall' = '5 s';
SET 'pipeline.name' = 'a/b';
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO snk VALUES (1);
