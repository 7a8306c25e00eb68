-- An undefined variable fails the statement it is in; the other
-- statements are still planned, and the table it would have defined is
-- not reported unknown.
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'format' = 'json',
  'properties.bootstrap.servers' = '${UNDEFINED_BOOTSTRAP}');
INSERT INTO snk SELECT * FROM src;
INSERT INTO src SELECT * FROM src;
