-- Two INSERTs into one filesystem table: each sink's pending files carry
-- its own id in the job, so recovering one never deletes the other's.
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE files (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/out', 'format' = 'json');
INSERT INTO files SELECT * FROM src;
INSERT INTO files SELECT id + 100 FROM src;
