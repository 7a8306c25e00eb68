-- a RIGHT interval join: dims without an event in their interval padded when their bound passes (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name FROM events e RIGHT JOIN dims d ON e.k = d.k AND e.ts BETWEEN d.ts - INTERVAL '1' SECOND AND d.ts + INTERVAL '4' SECOND;
