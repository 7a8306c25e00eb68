-- a LEFT interval join with strict bounds: unmatched events padded when their bound passes (order: any)
-- include: include/events_dims.sql

SELECT e.k, e.v, d.name FROM events e LEFT JOIN dims d ON e.k = d.k AND e.ts > d.ts - INTERVAL '1' SECOND AND e.ts < d.ts + INTERVAL '4' SECOND;
