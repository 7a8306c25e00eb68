CREATE TABLE t (id INT) WITH (
  'connector' = 'datagen
);
