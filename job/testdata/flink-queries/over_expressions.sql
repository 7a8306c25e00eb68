-- OVER aggregates inside expressions, with a filter on the input (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, v - AVG(v) OVER w AS diff, CAST(SUM(v) OVER w AS DOUBLE) / COUNT(*) OVER w AS mean FROM events WHERE v IS NOT NULL WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
