-- ORDER BY a rowtime the SELECT list leaves out
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE v > 2 ORDER BY ts;
