-- UNNEST of a MULTISET: each element as many times as it counts
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, e FROM arrays CROSS JOIN UNNEST(bag) AS m(e);
