-- An exactly-once sink with checkpoints in memory: a restarted process
-- has no checkpoint to finish the pending commits from, and its source
-- (earliest-offset) starts over. Refused, with what to set.
-- (planned without a default checkpoint folder)
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE orders (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'b:9092',
  'properties.group.id' = 'g', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE copy (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'copy', 'properties.bootstrap.servers' = 'b:9092',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'copy');
INSERT INTO copy SELECT * FROM orders;
