-- an OVER aggregate over an updating input, beyond Flink (FLINK-19059): streamsql runs it (docs/stateful.md)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, total, SUM(total) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (SELECT k, SUM(v) AS total, MAX(ts) AS t FROM events GROUP BY k);
