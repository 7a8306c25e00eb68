INSERT INTO enriched
SELECT o.id, c.name
FROM orders o
  JOIN customers c
WHERE o.cid = c.id;
