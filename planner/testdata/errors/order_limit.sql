CREATE TABLE e (k STRING, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE s (k STRING, v BIGINT) WITH ('connector' = 'blackhole');
-- LIMIT alone keeps the first rows to arrive: not over an updating input.
INSERT INTO s SELECT k, SUM(v) FROM e GROUP BY k LIMIT 2;
-- ORDER BY a position beyond the SELECT list, and a constant.
INSERT INTO s SELECT k, v FROM e ORDER BY 3 LIMIT 2;
INSERT INTO s SELECT k, v FROM e ORDER BY 'x' LIMIT 2;
-- LIMIT 0, and a LIMIT that is no row count.
INSERT INTO s SELECT k, v FROM e ORDER BY v LIMIT 0;
INSERT INTO s SELECT k, v FROM e ORDER BY v LIMIT -1;
-- An unknown column.
INSERT INTO s SELECT k, v FROM e ORDER BY nope LIMIT 2;
-- A position of a * item.
INSERT INTO s SELECT * FROM e UNION ALL SELECT k, v FROM e ORDER BY 2 LIMIT 2;
-- ORDER BY without LIMIT sorts a stream by a time attribute first, as in Flink; v is none.
INSERT INTO s SELECT k, v FROM e ORDER BY v;
