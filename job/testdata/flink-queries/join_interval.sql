-- an interval join: events within 3 s after a dimension row of their key (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT e.k, e.v, d.name, e.ts FROM events e JOIN dims d ON e.k = d.k AND e.ts BETWEEN d.ts AND d.ts + INTERVAL '3' SECOND;
