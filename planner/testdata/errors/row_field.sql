CREATE TABLE r (id BIGINT, addr ROW<city STRING>) WITH ('connector' = 'datagen');
CREATE TABLE out1 (id BIGINT, city STRING) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT id, addr.town FROM r;
INSERT INTO out1 SELECT id, id.city FROM r;
