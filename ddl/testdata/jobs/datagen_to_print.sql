-- A self-contained job: generated orders, filtered and reshaped, printed.
SET 'pipeline.name' = 'datagen-to-print';
SET 'execution.checkpointing.interval' = '${CHECKPOINT_INTERVAL:-10s}';

CREATE TEMPORARY TABLE orders (
  order_id    BIGINT,
  customer    STRING,
  amount      DECIMAL(10, 2),
  currency    CHAR(3),
  tags        ARRAY<STRING>,
  attrs       MAP<STRING, STRING>,
  address     ROW<street STRING, city STRING, zip INT>,
  order_time  TIMESTAMP(3),
  proc_time   AS PROCTIME(),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '10',
  'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1',
  'fields.order_id.end' = '1000'
);

CREATE TEMPORARY VIEW big_orders AS
SELECT
  order_id,
  UPPER(TRIM(customer)) AS customer,
  CAST(amount AS DOUBLE) * 1.1 AS amount_with_tax,
  CASE
    WHEN amount >= 1000 THEN 'large'
    WHEN amount >= 100 THEN 'medium'
    ELSE 'small'
  END AS size,
  tags[1] AS first_tag,
  attrs['channel'] AS channel,
  address.city AS city,
  CEIL(order_time TO HOUR) AS order_hour,
  EXTRACT(DAY FROM order_time) AS order_day
FROM orders /*+ OPTIONS('rows-per-second' = '100') */
WHERE amount > 10
  AND currency IN ('EUR', 'USD')
  AND customer IS NOT NULL
  AND customer NOT LIKE 'test\_%' ESCAPE '\';

CREATE TEMPORARY TABLE out (
  order_id BIGINT, customer STRING, amount_with_tax DOUBLE, size STRING,
  first_tag STRING, channel STRING, city STRING, order_hour TIMESTAMP(3), order_day BIGINT
) WITH ('connector' = 'print', 'print-identifier' = 'big');

INSERT INTO out SELECT * FROM big_orders;
