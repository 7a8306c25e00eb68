-- the comma form FROM t, UNNEST(t.arr), with WHERE and a projection over the unnested column
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT a.id, n * 10, n + a.id FROM arrays a, UNNEST(a.nums) AS u(n) WHERE n > 1 OR n IS NULL;
