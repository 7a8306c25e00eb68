-- ALTER VIEW AS a new query: readers after it read the new one
-- include: include/events_dims.sql

CREATE VIEW w AS SELECT k, v FROM events;
ALTER VIEW w AS SELECT k, lvl FROM dims WHERE lvl > 2;
SELECT * FROM w;
