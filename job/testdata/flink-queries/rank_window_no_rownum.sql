-- window Top-N without the row number (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, v, window_start FROM (SELECT k, v, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v ASC) AS rn FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 3;
