-- result: final (the two inputs of the UNION ALL reach the aggregation in an order neither engine fixes): a GROUP BY over a UNION ALL whose first input is NOT NULL and whose second is nullable, so the keys and the arguments take the nullable type
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, COUNT(*) AS n, COUNT(v) AS nv, MIN(v) AS lo, SUM(v) AS total FROM (SELECT COALESCE(s, 'none') AS k, COALESCE(v, 0) AS v FROM events UNION ALL SELECT s AS k, CASE WHEN v > 3 THEN NULL ELSE v END AS v FROM events) GROUP BY k;
