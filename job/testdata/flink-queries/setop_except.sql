-- EXCEPT: the distinct rows of the left input that the right one does not hold (updating) (result: final)
-- include: include/events_dims.sql

SELECT k, s FROM events EXCEPT SELECT k, CASE WHEN lvl > 2 THEN 'x' ELSE 'y' END FROM dims;
