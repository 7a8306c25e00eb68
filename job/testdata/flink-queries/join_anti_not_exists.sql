-- NOT EXISTS: an anti join, whose rows a later match takes back (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v FROM events e WHERE NOT EXISTS (SELECT 1 FROM dims d WHERE d.k = e.k AND d.lvl > 3);
