-- Kafka to Kafka, exactly once with checkpoints in memory: every source
-- resumes from its consumer group on the sink's cluster, so the sink
-- commits the sources' offsets in its transactions and a restart with no
-- checkpoint resumes where the committed output ends. The bootstrap
-- servers may be listed in another order. Sink parallelism differs from
-- the sources': each source task still sends all its rows to one sink task.
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE orders (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'b1:9092,b2:9092',
  'properties.group.id' = 'copy-job', 'scan.startup.mode' = 'group-offsets', 'properties.isolation.level' = 'read_committed',
  'format' = 'json');
CREATE TABLE more_orders WITH ('topic' = 'more-orders', 'properties.group.id' = 'copy-job-2') LIKE orders;
CREATE TABLE copy (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'copy', 'properties.bootstrap.servers' = 'b2:9092, b1:9092',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'copy', 'sink.parallelism' = '3');
INSERT INTO copy SELECT * FROM orders UNION ALL SELECT * FROM more_orders;
