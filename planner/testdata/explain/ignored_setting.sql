SET 'execution.checkpointing.unaligned.enabled' = 'true';
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO snk VALUES (1);
