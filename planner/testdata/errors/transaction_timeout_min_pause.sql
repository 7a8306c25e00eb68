-- The min pause may delay the next barrier after a fast checkpoint: a
-- transaction must outlive interval + min pause (10 s + 1 min), even
-- though the timeout is above interval + checkpoint timeout (10 s + 30 s).
SET 'execution.checkpointing.interval' = '10 s';
SET 'execution.checkpointing.min-pause' = '1 min';
SET 'execution.checkpointing.timeout' = '30 s';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE ksnk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'x', 'properties.transaction.timeout.ms' = '65000');
INSERT INTO ksnk SELECT * FROM src;
