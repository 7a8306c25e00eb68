-- FROM UNNEST with no table before it: the elements of constant arrays, with ORDINALITY, joined to a table's rows (order: any: the join sees its two inputs in either order)
CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
SELECT e.k, e.v, t.x, t.n FROM events e JOIN (SELECT x, n FROM UNNEST(ARRAY['a', 'b', 'z']) WITH ORDINALITY AS u (x, n)) t ON e.k = t.x WHERE e.v > 2;
