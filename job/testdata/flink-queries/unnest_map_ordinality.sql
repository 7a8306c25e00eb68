-- UNNEST WITH ORDINALITY of a MAP
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, k, v, pos FROM arrays CROSS JOIN UNNEST(attrs) WITH ORDINALITY AS m(k, v, pos);
