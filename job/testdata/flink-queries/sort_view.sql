-- a view sorted without LIMIT: its sort is dropped where a query reads it (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE VIEW sv AS SELECT k, v, ts FROM events ORDER BY ts DESC;

SELECT k, v FROM sv WHERE v > 5;
