INSERT INTO totals
SELECT customer, SUM(amount)
FROM orders
GROUP BY customer;
