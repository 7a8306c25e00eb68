-- ROW_NUMBER() OVER ordered by an aggregate, in the aggregating SELECT itself, filtered by the query reading it: a Top-N of the aggregation
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, total, rn FROM (SELECT k, SUM(v) AS total, ROW_NUMBER() OVER (ORDER BY SUM(v) DESC, k) AS rn FROM events GROUP BY k) WHERE rn <= 2;
