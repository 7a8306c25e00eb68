-- RIGHT JOIN ... USING: the unqualified USING column is the right input's (result: final)
-- include: include/events_dims.sql

SELECT k, v, name FROM events e RIGHT JOIN dims d USING (k);
