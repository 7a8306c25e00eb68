-- UNNEST WITH ORDINALITY: the element's 1-based position as a last column
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, t, pos FROM arrays CROSS JOIN UNNEST(tags) WITH ORDINALITY AS T(t, pos);
