-- a CUMULATE window table function with named arguments, read as a table (order: any: the rows of one input row have no order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, ts, window_start, window_end FROM TABLE(CUMULATE(DATA => TABLE events, TIMECOL => DESCRIPTOR(ts), STEP => INTERVAL '5' SECOND, SIZE => INTERVAL '15' SECOND));
