-- ORDER BY ... FETCH FIRST n ROWS ONLY over an aggregation
-- include: include/events_dims.sql

SELECT k, SUM(v) AS total FROM events GROUP BY k ORDER BY total DESC, k FETCH FIRST 2 ROWS ONLY;
