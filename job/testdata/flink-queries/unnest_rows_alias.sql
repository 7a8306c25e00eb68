-- UNNEST of an array of ROWs with column names of its own: each element's fields are columns, and a NULL element gives no row
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, s, q FROM arrays CROSS JOIN UNNEST(items) AS i(s, q);
