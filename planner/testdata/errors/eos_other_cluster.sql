-- The source reads another cluster than the sink writes: the sink cannot
-- commit the source's offsets in its transactions.
-- (planned without a default checkpoint folder)
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE orders (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'other:9092',
  'properties.group.id' = 'g', 'scan.startup.mode' = 'group-offsets', 'format' = 'json');
CREATE TABLE copy (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'copy', 'properties.bootstrap.servers' = 'b:9092',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'copy');
INSERT INTO copy SELECT * FROM orders;
