CREATE TABLE src (u STRING, n INT, c STRING) WITH ('connector' = 'datagen');
CREATE TABLE pv (u STRING, n INT NOT NULL, dt STRING, c STRING) PARTITIONED BY (dt, c) WITH ('connector' = 'filesystem', 'path' = '/tmp/pv', 'format' = 'csv');
-- INSERT ... PARTITION: partition columns given once, constants of their
-- types, the query providing the other columns.
INSERT INTO pv PARTITION (u = 'x') SELECT n, c, c FROM src;
INSERT INTO pv PARTITION (dt = '1', dt = '2') SELECT u, n, c FROM src;
INSERT INTO pv PARTITION (dt = '1') SELECT u, n FROM src;
INSERT INTO pv PARTITION (dt = '1') (u, dt, c) SELECT u, c, c FROM src;
INSERT INTO pv PARTITION (dt = '1', c = 'x') (u) SELECT u FROM src;
INSERT INTO pv PARTITION (dt = '1', c = 'x') (u, n) SELECT u, n FROM src;
