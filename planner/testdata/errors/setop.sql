CREATE TABLE e (k STRING, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE s (k STRING) WITH ('connector' = 'blackhole');
-- The ALL forms check their inputs as the others do.
INSERT INTO s SELECT k FROM e INTERSECT ALL SELECT k, v FROM e;
INSERT INTO s SELECT k FROM e EXCEPT ALL SELECT v FROM e;
-- Inputs of different widths, and columns without a common type.
INSERT INTO s SELECT k FROM e INTERSECT SELECT k, v FROM e;
INSERT INTO s SELECT k FROM e EXCEPT SELECT v FROM e;
