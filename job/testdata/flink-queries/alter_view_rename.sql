-- ALTER VIEW RENAME TO
-- include: include/events_dims.sql

CREATE VIEW w AS SELECT k FROM events;
ALTER VIEW w RENAME TO w2;
SHOW VIEWS;
