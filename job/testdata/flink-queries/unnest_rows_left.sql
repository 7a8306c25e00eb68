-- LEFT JOIN UNNEST of an array of ROWs, unaliased columns read by their field names
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, i.sku, i.qty FROM arrays LEFT JOIN UNNEST(items) AS i ON TRUE;
