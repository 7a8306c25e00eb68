-- INTERSECT ALL: each row as many times as the fewer of its copies in the two inputs (result: final)
-- include: include/events_dims.sql

SELECT k FROM events INTERSECT ALL SELECT k FROM dims;
