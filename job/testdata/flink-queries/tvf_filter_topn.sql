-- a window Top-N over a filtered window table function (order: any: the rows of one watermark have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT k, v, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn FROM (SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v IS NOT NULL)) WHERE rn <= 2;
