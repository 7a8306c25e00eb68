-- SHOW VIEWS lists the views
-- include: include/events_dims.sql

CREATE VIEW w AS SELECT k FROM events;
CREATE VIEW a AS SELECT k FROM dims;
SHOW VIEWS;
