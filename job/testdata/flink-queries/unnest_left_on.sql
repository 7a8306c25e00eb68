-- LEFT JOIN UNNEST with an ON condition other than TRUE
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, t FROM arrays LEFT JOIN UNNEST(tags) AS T(t) ON t = 'a';
