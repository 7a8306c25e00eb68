CREATE TABLE t (a TIMESTAMP(3), b TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (x BOOLEAN) WITH ('connector' = 'print');
INSERT INTO o SELECT (a, INTERVAL '1' HOUR) OVERLAPS (b, INTERVAL '2' HOUR) FROM t;
