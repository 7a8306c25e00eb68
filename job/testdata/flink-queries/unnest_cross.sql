-- CROSS JOIN UNNEST of an array of strings: empty and NULL arrays give no rows, NULL elements a NULL
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, t FROM arrays CROSS JOIN UNNEST(tags) AS T(t);
