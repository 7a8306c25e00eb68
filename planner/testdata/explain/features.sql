-- Catalog and resolution features in one job.
SET 'execution.checkpointing.interval' = '30 s';
SET 'execution.checkpointing.dir' = 'file:///var/lib/streamsql';

CREATE TEMPORARY TABLE events (
  id BIGINT,
  payload STRING,
  price DECIMAL(10, 2),
  qty INT,
  `partition` BIGINT METADATA VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  total AS price * qty,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka', 'topic' = 'events;more-events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'properties.group.id' = 'g',
  'value.format' = 'json'
);

-- Kept: the first definition wins with IF NOT EXISTS.
CREATE TABLE IF NOT EXISTS events (x INT) WITH ('connector' = 'datagen');

CREATE TABLE default_catalog.default_database.enriched (
  id BIGINT NOT NULL,
  label STRING,
  total DECIMAL(21, 2),
  part BIGINT,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `offset` BIGINT METADATA VIRTUAL
) WITH (
  'connector' = 'kafka', 'topic' = 'enriched',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'enriched-v1',
  'properties.transaction.timeout.ms' = '900000',
  'format' = 'json'
);

CREATE VIEW priced AS
  SELECT id, UPPER(payload) AS label, total, `partition` AS part, ts FROM events WHERE qty > 0;

CREATE TABLE gen (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '5');

INSERT INTO enriched
SELECT CAST(id AS BIGINT NOT NULL), label, total, part, ts FROM priced WHERE label IS NOT NULL
UNION ALL
SELECT g.id, g.name, CAST(NULL AS DECIMAL(21, 2)), CAST(0 AS BIGINT), CURRENT_TIMESTAMP FROM gen /*+ OPTIONS('rows-per-second' = '50') */ AS g;

CREATE TABLE narrow (id BIGINT, note STRING, n INT) WITH ('connector' = 'blackhole');

INSERT INTO narrow (note, id) SELECT name, id FROM gen;

INSERT INTO narrow VALUES (1, 'one', 1), (2, CAST(NULL AS STRING), 2);

SELECT id, name FROM gen WHERE id BETWEEN 1 AND 10;

EXPLAIN PLAN FOR SELECT * FROM (SELECT id, name AS n FROM gen) AS t (a, b) WHERE t.a IN (1, 2, 3);
