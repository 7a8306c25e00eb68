-- a regular join whose right input is a window aggregation, bounded by >= and < on window_end: streamsql drops the left rows no window still to come matches (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, w.mx, w.we
FROM events e JOIN (
  SELECT k, MAX(v) AS mx, window_end AS we
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end
) w ON e.k = w.k
WHERE e.ts >= w.we - INTERVAL '5' SECOND AND e.ts < w.we;
