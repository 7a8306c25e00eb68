-- ORDER BY ... LIMIT ... OFFSET: the rows ranked 3 to 4
-- include: include/events_dims.sql

SELECT k, v FROM events ORDER BY v, ts DESC LIMIT 2 OFFSET 2;
