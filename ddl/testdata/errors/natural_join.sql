SELECT * FROM orders NATURAL JOIN customers;
