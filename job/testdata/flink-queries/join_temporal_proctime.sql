-- a processing-time temporal join of a versioned table (Flink refuses it)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE versions (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/versions', 'format' = 'debezium-json');

SELECT e.k, e.v, v.name FROM events e JOIN versions FOR SYSTEM_TIME AS OF e.pt AS v ON e.k = v.k;
