INSERT INTO enriched
SELECT o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id;
