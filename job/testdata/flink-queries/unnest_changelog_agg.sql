-- COUNT per unnested tag over a changelog source: the retractions of an update's old array reach the aggregate
CREATE TABLE arrays (
  id INT, tags ARRAY<STRING>,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/arrays_cdc', 'format' = 'debezium-json');

SELECT t, COUNT(*) FROM arrays LEFT JOIN UNNEST(tags) AS T(t) ON TRUE GROUP BY t;
