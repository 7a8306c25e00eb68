CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE ksnk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'properties.transaction.timeout.ms' = '15 min');
INSERT INTO ksnk SELECT * FROM src;
