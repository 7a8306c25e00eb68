-- The filesystem sink is exactly-once too: without a checkpoint directory
-- a restarted process deletes the pending files and reads its files again.
-- (planned without a default checkpoint folder)
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE files (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/out', 'format' = 'json');
INSERT INTO files SELECT * FROM src;
