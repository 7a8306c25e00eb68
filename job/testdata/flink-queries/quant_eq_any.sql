-- = ANY is IN: a semi join (order: any)
-- include: include/events_dims.sql

SELECT k, v FROM events WHERE k = ANY (SELECT k FROM dims WHERE lvl < 3);
