-- ALTER TABLE MODIFY a column's type and position, and the WATERMARK
-- include: include/events_dims.sql

CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), c AS a + 1, WATERMARK FOR ts AS ts) WITH ('connector' = 'blackhole');
ALTER TABLE t MODIFY (b VARCHAR(10) FIRST, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND);
DESCRIBE t;
