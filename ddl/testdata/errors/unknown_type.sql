-- A typo in a column type.
CREATE TABLE orders (
  id BIGINT,
  customer STRIN,
  amount DECIMAL(10, 2)
) WITH ('connector' = 'datagen');
