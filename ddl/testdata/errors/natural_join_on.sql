SELECT * FROM orders NATURAL JOIN customers ON orders.id = customers.id;
