-- a quantified comparison in the SELECT list (result: final)
-- include: include/events_dims.sql

SELECT k, v, v > ANY (SELECT lvl FROM dims WHERE lvl > 3) AS big FROM events WHERE v > 4;
