CREATE TABLE p (id BIGINT) WITH ('connector' = 'print');
CREATE TABLE out1 (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT * FROM p;
