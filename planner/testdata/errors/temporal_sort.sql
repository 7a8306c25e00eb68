CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, pt AS PROCTIME()) WITH ('connector' = 'datagen');
-- ORDER BY without LIMIT: a time attribute first, ascending, over an
-- insert-only input.
SELECT k, v FROM t ORDER BY ts DESC;
SELECT k, v FROM t ORDER BY v, ts;
SELECT k, COUNT(*) AS n FROM t GROUP BY k ORDER BY n;
SELECT k, ts FROM (SELECT k, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2 ORDER BY ts;
SELECT k, v FROM t ORDER BY ts OFFSET 2 ROWS;
