SELECT "name" FROM users;
