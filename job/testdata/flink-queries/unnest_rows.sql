-- UNNEST of an array of ROWs: each element's fields are columns, named as the fields, and a NULL element gives no row
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, sku, qty FROM arrays CROSS JOIN UNNEST(items);
