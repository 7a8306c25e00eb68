SET 'a' = 'b'
SET 'c' = 'd';
