-- ALTER VIEW of a view that does not exist is refused
-- include: include/events_dims.sql

ALTER VIEW nope RENAME TO w2;
SHOW VIEWS;
