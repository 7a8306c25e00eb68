CREATE VIEW v AS SELECT * FROM nowhere;
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT * FROM v;
