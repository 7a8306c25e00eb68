CREATE TABLE g (id BIGINT, t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH ('connector' = 'datagen');
CREATE TABLE out1 (id BIGINT, t TIMESTAMP_LTZ(3)) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT * FROM g;
