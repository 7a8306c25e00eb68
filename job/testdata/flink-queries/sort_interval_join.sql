-- ORDER BY the rowtime of an interval join output
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name FROM events e JOIN dims d ON e.k = d.k AND e.ts BETWEEN d.ts - INTERVAL '5' SECOND AND d.ts + INTERVAL '5' SECOND ORDER BY e.ts, e.v;
