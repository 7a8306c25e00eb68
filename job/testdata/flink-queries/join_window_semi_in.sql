-- a window SEMI join: IN over a TUMBLE window table function of the same window (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT e.k, e.v, e.window_start, e.window_end FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND)) e WHERE e.k IN (SELECT d.k FROM TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '10' SECOND)) d WHERE e.window_start = d.window_start AND e.window_end = d.window_end);
