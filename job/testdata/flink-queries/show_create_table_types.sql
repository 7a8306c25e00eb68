-- SHOW CREATE TABLE of the other types and a named PRIMARY KEY
-- include: include/events_dims.sql

CREATE TABLE t (a VARCHAR(10), b CHAR(3), d DOUBLE, f FLOAT, bo BOOLEAN, dt DATE, tm TIME, ti TINYINT, si SMALLINT, bi BIGINT, vb VARBINARY(5), bn BINARY(2), ts6 TIMESTAMP(6), c2 AS UPPER(a) || 'x', CONSTRAINT pk PRIMARY KEY (bi) NOT ENFORCED) WITH ('connector' = 'blackhole');
SHOW CREATE TABLE t;
