-- UNNEST over a changelog source (debezium-json): each change's expansion keeps its row kind
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays_cdc', 'format' = 'debezium-json');

SELECT id, t FROM arrays CROSS JOIN UNNEST(tags) AS T(t);
