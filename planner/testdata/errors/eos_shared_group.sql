-- Two pipelines read one consumer group and each would commit its offsets
-- in its own sink's transactions, overwriting the other's: the offsets no
-- longer match either sink's output, so memory checkpoints are refused.
-- (planned without a default checkpoint folder)
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE orders (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'b:9092',
  'properties.group.id' = 'g', 'scan.startup.mode' = 'group-offsets', 'format' = 'json');
CREATE TABLE a (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'a', 'properties.bootstrap.servers' = 'b:9092',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'a');
CREATE TABLE b WITH ('topic' = 'b', 'sink.transactional-id-prefix' = 'b') LIKE a;
EXECUTE STATEMENT SET BEGIN
  INSERT INTO a SELECT * FROM orders;
  INSERT INTO b SELECT * FROM orders;
END;
