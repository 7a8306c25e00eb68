-- USE of a database that does not exist is refused
USE nowhere;
CREATE TABLE events (
  k STRING, v BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');

SELECT k FROM events;
