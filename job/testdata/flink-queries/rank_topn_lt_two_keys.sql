-- Top-N by rn < N over two sort keys, ASC and DESC
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT k, v, d, ROW_NUMBER() OVER (PARTITION BY k ORDER BY d ASC, v DESC) AS rn FROM events) WHERE rn < 3;
