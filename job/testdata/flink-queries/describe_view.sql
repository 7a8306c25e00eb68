-- DESCRIBE of a view
-- include: include/events_dims.sql

CREATE VIEW w AS SELECT k, v * 2 AS v2, COALESCE(d, 0) AS d FROM events;
DESCRIBE w;
