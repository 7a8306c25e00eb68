-- a regular join of events with a HOP window aggregation of dims, bounded by BETWEEN over window_start, at parallelism 2: streamsql drops the left rows no window still to come matches (result: final)
SET 'parallelism.default' = '2';
-- include: include/events_dims.sql

SELECT e.k, e.v, e.ts, w.n, w.ws
FROM events e JOIN (
  SELECT k, COUNT(*) AS n, window_start AS ws
  FROM TABLE(HOP(TABLE dims, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
  GROUP BY k, window_start, window_end
) w ON e.k = w.k
WHERE e.ts BETWEEN w.ws AND w.ws + INTERVAL '3' SECOND;
