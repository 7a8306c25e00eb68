-- AT_LEAST_ONCE checkpoints do not align barriers: an exactly-once sink
-- then delivers at least once after a failure (a warning), and EXPLAIN
-- says so.
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE';
SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE files (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/out', 'format' = 'json');
INSERT INTO files SELECT * FROM src;
