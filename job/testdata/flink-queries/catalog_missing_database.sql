-- a table in a database that was not created is refused, as Flink refuses it
CREATE TABLE nowhere.events (
  k STRING, v BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k FROM nowhere.events;
