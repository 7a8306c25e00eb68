-- LEFT JOIN ... USING: the unqualified USING column is the left input's, both qualified ones stay readable (result: final)
-- include: include/events_dims.sql

SELECT k, e.k AS ek, d.k AS dk, v, name FROM events e LEFT JOIN dims d USING (k);
