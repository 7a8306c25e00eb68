-- a regular join of events with a window aggregation's window_time, one bound written window_time < e.ts + 2 s beside a condition of the values: streamsql drops the events no window still to come matches (result: final)
-- include: include/events_dims.sql

SELECT e.k, e.v, w.total, w.wt
FROM events e, (
  SELECT k, SUM(v) AS total, window_time AS wt
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY k, window_start, window_end, window_time
) w
WHERE e.k = w.k AND w.wt < e.ts + INTERVAL '2' SECOND AND e.v * 3 >= w.total;
