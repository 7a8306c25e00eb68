-- a LEFT window join of CUMULATE windows (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT e.k, e.v, d.name, e.window_end FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) e LEFT JOIN TABLE(CUMULATE(TABLE dims, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) d ON e.k = d.k AND e.window_start = d.window_start AND e.window_end = d.window_end;
