-- VAR_SAMP(DISTINCT ...) and STDDEV_POP with FILTER in GROUP BY
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, VAR_SAMP(DISTINCT v), STDDEV_POP(d) FILTER (WHERE v > 2), COUNT(*) FROM events GROUP BY k;
