SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE (SELECT * FROM bids), DESCRIPTOR(ts), INTERVAL '10' MINUTES))
GROUP BY window_start, window_end;
