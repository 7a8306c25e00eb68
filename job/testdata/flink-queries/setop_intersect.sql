-- INTERSECT: the distinct rows of the left input that the right one holds too (NULL meets NULL) (result: final)
-- include: include/events_dims.sql

SELECT k FROM events INTERSECT SELECT k FROM dims;
