-- Constant arguments that only compiling the expression rejects (a date
-- format, a JSON path) are errors of the statement, at the column, when
-- planning: validate and explain report them, not only the run.
CREATE TABLE src (k BIGINT, s STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
CREATE TABLE snk (x STRING) WITH ('connector' = 'print');
INSERT INTO snk SELECT DATE_FORMAT(ts, 'yyyy-MM-dd''') FROM src;
SELECT k, JSON_VALUE(s, '$..[') FROM src;
SELECT k FROM src WHERE JSON_VALUE(s, '$.a[') = 'x';
