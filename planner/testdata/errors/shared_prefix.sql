CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE a (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'a', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p');
CREATE TABLE b WITH ('topic' = 'b') LIKE a;
INSERT INTO a SELECT * FROM src;
INSERT INTO b SELECT * FROM src;
SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
