CREATE TABLE e (k STRING, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE s (k STRING) WITH ('connector' = 'blackhole');
-- INTERSECT and EXCEPT run; their ALL forms (a row as many times as it is in both) do not yet.
INSERT INTO s SELECT k FROM e INTERSECT ALL SELECT k FROM e;
INSERT INTO s SELECT k FROM e EXCEPT ALL SELECT k FROM e;
-- Inputs of different widths, and columns without a common type.
INSERT INTO s SELECT k FROM e INTERSECT SELECT k, v FROM e;
INSERT INTO s SELECT k FROM e EXCEPT SELECT v FROM e;
