-- The SET of the checkpoint timeout does not parse, so the check of the
-- transaction timeout against it (here against the default of 10 min)
-- would be wrong: it is left out.
SET 'execution.checkpointing.interval' = '10s';
SET 'execution.checkpointing.timeout' = 1min;
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE ksnk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'properties.transaction.timeout.ms' = '300000');
INSERT INTO ksnk SELECT * FROM src;
