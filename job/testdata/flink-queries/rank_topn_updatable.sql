-- Top-N over an updating input monotonic in its sort key (UpdatableTopNFunction)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT * FROM (SELECT s, cnt, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn FROM (SELECT s, COUNT(*) AS cnt FROM events GROUP BY s)) WHERE rn <= 2;
