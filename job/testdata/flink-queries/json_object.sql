-- JSON_OBJECT in both syntaxes, with ON NULL clauses, a nested JSON_ARRAY and JSON_STRING: each row's columns as JSON, through a view
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE VIEW j AS SELECT k, JSON_OBJECT(KEY 'k' VALUE k, KEY 'v' VALUE v, 'd' VALUE d, 'm' : m, 's' VALUE s, 'ts' VALUE ts, 'tags' VALUE JSON_ARRAY(k, s, v NULL ON NULL)) AS full_row, JSON_OBJECT('v' VALUE v, 's' VALUE s ABSENT ON NULL) AS present, JSON_STRING(s) AS js FROM events;
SELECT k, full_row, present, js FROM j;
