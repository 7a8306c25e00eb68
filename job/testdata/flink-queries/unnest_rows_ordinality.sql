-- UNNEST WITH ORDINALITY of an array of ROWs
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, sku, qty, pos FROM arrays CROSS JOIN UNNEST(items) WITH ORDINALITY AS i(sku, qty, pos);
