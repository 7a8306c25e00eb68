-- UNNEST WITH ORDINALITY of a MULTISET, and a filter on the source's column
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<sku STRING, qty INT>>, attrs MAP<STRING, INT>, bag MULTISET<STRING>
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays', 'format' = 'json');

SELECT id, e, pos FROM arrays CROSS JOIN UNNEST(bag) WITH ORDINALITY AS m(e, pos) WHERE id > 1;
