-- window Top-N with RANK() (order: any: the rows of one watermark have no order)
CREATE TABLE ticks (
  k STRING, v BIGINT, p BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/ticks', 'format' = 'json');

SELECT * FROM (SELECT k, v, p, window_start, window_end, RANK() OVER (PARTITION BY window_start, window_end ORDER BY p DESC) AS r FROM TABLE(TUMBLE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '5' SECOND))) WHERE r <= 2;
