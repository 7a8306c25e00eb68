-- a FULL window join of inputs written as Flink's window join page writes them, (SELECT * FROM TABLE(TUMBLE(...))) L (order: any)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');

SELECT L.k, L.v, R.k AS rk, R.name, COALESCE(L.window_start, R.window_start) AS window_start, COALESCE(L.window_end, R.window_end) AS window_end FROM (SELECT * FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))) L FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE dims, DESCRIPTOR(ts), INTERVAL '5' SECOND))) R ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
