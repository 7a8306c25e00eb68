CREATE TABLE orders (id BIGINT, cid BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE customers (id BIGINT, name STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE updates (id BIGINT, name STRING, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE enriched (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
CREATE TABLE appended (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
-- An unqualified column both inputs have.
INSERT INTO enriched SELECT id, name FROM orders o JOIN customers c ON o.cid = c.id;
-- A STATE_TTL key that names no input.
INSERT INTO enriched SELECT /*+ STATE_TTL('x' = '1d') */ o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id;
-- A LEFT JOIN retracts its padded rows: an append-only sink cannot take them.
INSERT INTO appended SELECT o.id, c.name FROM orders o LEFT JOIN customers c ON o.cid = c.id;
-- An interval join takes insert-only inputs.
INSERT INTO enriched SELECT o.id, u.name FROM orders o JOIN updates u ON o.cid = u.id AND o.ts BETWEEN u.ts AND u.ts + INTERVAL '1' MINUTE;
-- Keys without a common type.
INSERT INTO enriched SELECT o.id, c.name FROM orders o JOIN customers c ON o.cid = c.name;
-- A window join of two different windows.
INSERT INTO enriched SELECT l.id, r.name FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND)) l
  JOIN TABLE(TUMBLE(TABLE customers, DESCRIPTOR(ts), INTERVAL '20' SECOND)) r ON l.cid = r.id AND l.window_start = r.window_start AND l.window_end = r.window_end;
-- A window table function joined without its windows.
INSERT INTO enriched SELECT l.id, r.name FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND)) l JOIN customers r ON l.cid = r.id;
-- JOIN ... USING a column one input does not have, and an unqualified
-- column of a USING join that both inputs have besides the USING ones.
INSERT INTO enriched SELECT o.id, c.name FROM orders o JOIN customers c USING (cid);
INSERT INTO enriched SELECT id, CAST(ts AS STRING) FROM orders o JOIN customers c USING (id);
-- A regular join's output has no time attribute.
INSERT INTO enriched SELECT MAX(id), CAST(window_start AS STRING) FROM TABLE(TUMBLE((SELECT o.id, o.ts FROM orders o JOIN customers c ON o.cid = c.id), DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
-- A temporal join of a table without a PRIMARY KEY, of one whose key the
-- ON does not equate, and AS OF something not the left input's rowtime.
INSERT INTO enriched SELECT o.id, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.ts AS c ON o.cid = c.id;
INSERT INTO enriched SELECT o.id, u.name FROM orders o JOIN updates FOR SYSTEM_TIME AS OF o.ts AS u ON CAST(o.cid AS STRING) = u.name;
INSERT INTO enriched SELECT o.id, u.name FROM orders o JOIN updates FOR SYSTEM_TIME AS OF o.id AS u ON o.cid = u.id;
INSERT INTO enriched SELECT o.id, u.name FROM orders o FULL JOIN updates FOR SYSTEM_TIME AS OF o.ts AS u ON o.cid = u.id;
-- A lookup join of a table no connector looks rows up in, and one
-- without an equality to look up by.
INSERT INTO enriched SELECT o.id, c.name FROM (SELECT *, PROCTIME() AS p FROM orders) o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.cid = c.id;
