-- an interval join: events within 3 s after a dimension row of their key (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name, e.ts FROM events e JOIN dims d ON e.k = d.k AND e.ts BETWEEN d.ts AND d.ts + INTERVAL '3' SECOND;
