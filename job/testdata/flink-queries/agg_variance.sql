-- STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP in GROUP BY over BIGINT, DOUBLE and DECIMAL, NULLs included
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k, STDDEV_POP(v), STDDEV_SAMP(v), VAR_POP(v), VAR_SAMP(v), STDDEV_POP(d), STDDEV_SAMP(d), VAR_POP(d), VAR_SAMP(d), VAR_POP(m), STDDEV_SAMP(m) FROM events GROUP BY k;
