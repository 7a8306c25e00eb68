CREATE TABLE t (k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
-- Scalar subqueries: in WHERE, HAVING and the SELECT list, correlated by
-- equalities only, with items that are NULL over no rows (or COUNT).
SELECT k, COUNT(*), (SELECT MAX(v) FROM t) FROM t GROUP BY ROLLUP (k);
SELECT k FROM t a WHERE v > (SELECT MAX(v) FROM t b WHERE b.v < a.v);
SELECT k FROM t a WHERE v > (SELECT COALESCE(MAX(b.v), 0) FROM t b WHERE b.k = a.k);
SELECT k FROM t a WHERE v > (SELECT COUNT(*) + 1 FROM t b WHERE b.k = a.k);
SELECT k, (SELECT k, v FROM t) FROM t;
SELECT k FROM t GROUP BY k, (SELECT 1);
SELECT window_start, (SELECT MAX(v) FROM t) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE));
SELECT k, v, (SELECT MAX(v) FROM t) AS m, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) FROM t;
