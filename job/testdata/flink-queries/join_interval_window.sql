-- a window aggregation over an interval join's output (its rowtime passes through) (order: any)
-- include: include/events_dims.sql

SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE((SELECT e.ts, d.name FROM events e, dims d WHERE e.k = d.k AND e.ts BETWEEN d.ts - INTERVAL '5' SECOND AND d.ts + INTERVAL '5' SECOND), DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
