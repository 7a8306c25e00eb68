-- a CTE read twice, and UNION (which removes duplicates) (result: final: the branches of a UNION arrive in no fixed order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

WITH big AS (SELECT k, v FROM events WHERE v > 3) SELECT k FROM big UNION SELECT k FROM big WHERE v > 100 UNION SELECT s FROM events WHERE s IS NOT NULL;
