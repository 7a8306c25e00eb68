-- deduplication keeping the first row by processing time (insert-only)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3), pt AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY s ORDER BY pt ASC) AS rn FROM events) WHERE rn = 1;
