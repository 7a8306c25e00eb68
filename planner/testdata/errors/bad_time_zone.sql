SET 'table.local-time-zone' = 'Mars/Olympus';
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO snk VALUES (1);
