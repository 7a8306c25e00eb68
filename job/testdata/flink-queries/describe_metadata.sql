-- DESCRIBE of metadata columns and a processing-time attribute
-- include: include/events_dims.sql

CREATE TABLE t3 (a INT, p AS PROCTIME(), fp STRING METADATA FROM 'file.path' VIRTUAL, `file.name` STRING METADATA VIRTUAL) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
DESCRIBE t3;
