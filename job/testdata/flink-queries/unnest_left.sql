-- LEFT JOIN UNNEST ... ON TRUE: an empty or NULL array keeps its row, with NULL
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, t FROM arrays LEFT JOIN UNNEST(tags) AS T(t) ON TRUE;
