-- result: final (Flink's mini-batch folds what arrives within allow-latency or size rows, streamsql what one input batch holds, and the final tables are the same): retractions through two aggregation levels under table.exec.mini-batch with a bundle of 3 rows, so keys fold, retract and come back
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT cnt, COUNT(*) AS keys, SUM(total) FROM (SELECT k, COUNT(*) AS cnt, SUM(v) AS total FROM events GROUP BY k) GROUP BY cnt;
