-- GROUP BY over unnested elements: counts per tag
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT t, COUNT(*), SUM(id) FROM arrays CROSS JOIN UNNEST(tags) AS T(t) GROUP BY t;
