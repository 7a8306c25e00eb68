-- Joins bounded in time: interval joins (BETWEEN, and strict bounds that
-- become inclusive ones 1 ms inside), a window aggregation over an
-- interval join's output (it keeps the left input's rowtime), and window
-- joins of window table functions (TUMBLE with FULL OUTER, HOP).
CREATE TABLE orders (id BIGINT, customer BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE shipments (order_id BIGINT, carrier STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE shipped (id BIGINT, carrier STRING, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
CREATE TABLE per_carrier (carrier STRING, window_start TIMESTAMP(3), orders BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE windowed (id BIGINT, carrier STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO shipped
SELECT o.id, s.carrier, o.ts
FROM orders o JOIN shipments s ON o.id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '4' HOUR;
INSERT INTO shipped
SELECT o.id, s.carrier, o.ts
FROM orders o LEFT JOIN shipments s ON o.id = s.order_id AND s.ts > o.ts - INTERVAL '1' MINUTE AND s.ts < o.ts + INTERVAL '1' HOUR;
INSERT INTO per_carrier
SELECT carrier, window_start, COUNT(*)
FROM TABLE(TUMBLE((
  SELECT o.ts, s.carrier FROM orders o, shipments s WHERE o.id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '1' HOUR
), DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY carrier, window_start, window_end;
INSERT INTO windowed
SELECT COALESCE(o.id, s.order_id), s.carrier, COALESCE(o.window_start, s.window_start), COALESCE(o.window_end, s.window_end)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) o
FULL JOIN TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) s
ON o.id = s.order_id AND o.window_start = s.window_start AND o.window_end = s.window_end;
INSERT INTO windowed
SELECT o.id, s.carrier, o.window_start, o.window_end
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)) o
JOIN TABLE(HOP(TABLE shipments, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)) s
ON o.id = s.order_id AND o.window_start = s.window_start AND o.window_end = s.window_end AND s.carrier <> 'none';
