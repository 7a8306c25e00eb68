-- an OVER aggregate over an updating input with several rows per partition, beyond Flink (FLINK-19059): streamsql runs it, and the table it leaves must be Flink's batch result (docs/ranking.md)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, s, total, SUM(total) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2, COUNT(*) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n FROM (SELECT k, s, SUM(v) AS total, MAX(ts) AS t FROM events GROUP BY k, s);
