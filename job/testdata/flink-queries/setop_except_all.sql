-- EXCEPT ALL: each row as many times as its copies on the left outnumber those on the right (result: final)
-- include: include/events_dims.sql

SELECT k FROM events EXCEPT ALL SELECT k FROM dims;
