-- EXCEPT ALL matches NULL with NULL: one of the two NULL rows is taken away (result: final)
-- include: include/events_dims.sql

SELECT s FROM events EXCEPT ALL SELECT CAST(NULL AS STRING) FROM dims WHERE lvl < 1;
