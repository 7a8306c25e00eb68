-- Projection pushdown: each source's 'project' line lists the fields its
-- pipeline reads (select list, WHERE, computed columns through their
-- columns, watermark, primary key); the format decodes only those.
CREATE TABLE events (
  id BIGINT, kind STRING, amount INT, note STRING, region STRING,
  payload STRING, extra INT,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  part INT METADATA FROM 'partition' VIRTUAL,
  doubled AS amount * 2,
  label AS CONCAT(kind, '/', region)
) WITH (
  'connector' = 'kafka', 'topic' = 'events',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE timed (
  id BIGINT, amount INT, note STRING, event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka', 'topic' = 'timed',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'
);

CREATE TABLE users (
  id BIGINT, name STRING, email STRING, PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'users',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'key.format' = 'json', 'value.format' = 'json'
);

CREATE TABLE out_all (id BIGINT, kind STRING, amount INT, note STRING, region STRING, payload STRING, extra INT, ts TIMESTAMP_LTZ(3), part INT, doubled INT, label STRING)
  WITH ('connector' = 'print');
CREATE TABLE out_one (id BIGINT) WITH ('connector' = 'print');
CREATE TABLE out_two (id BIGINT, x STRING) WITH ('connector' = 'print');
CREATE TABLE out_num (id BIGINT, n INT) WITH ('connector' = 'print');

-- SELECT *: every field, no 'project' line.
INSERT INTO out_all SELECT * FROM events;
-- A column used only in WHERE is read.
INSERT INTO out_one SELECT id FROM events WHERE note IS NOT NULL;
-- Computed columns read the columns they refer to (label: kind, region).
INSERT INTO out_two SELECT id, label FROM events WHERE doubled > 10;
-- UNION ALL of one table twice: each branch reads its own columns.
INSERT INTO out_two
  SELECT id, kind FROM events
  UNION ALL
  SELECT extra, payload FROM events;
-- Metadata columns are read like others.
INSERT INTO out_num SELECT id, part FROM events WHERE ts IS NOT NULL;
-- The watermark's column is read though the query does not select it.
INSERT INTO out_num SELECT id, amount FROM timed;
-- The primary key of an upsert source is read.
INSERT INTO out_two SELECT CAST(NULL AS BIGINT), name FROM users;
-- The same table in a second INSERT reads its own columns.
INSERT INTO out_one SELECT id FROM events;
