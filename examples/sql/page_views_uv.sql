-- page_views_uv.sql: unique visitors per minute, written the way Flink SQL
-- job files write it.
--
-- Shows: CREATE DATABASE and USE (the tables are analytics.page_views and
-- analytics.uv_per_minute); a window table function read through a
-- subquery that filters it (Flink plans that as one window aggregation);
-- COUNT(DISTINCT ...) in a window aggregation; GROUPING SETS beside the
-- window columns (a row per page and one for all pages, told apart by
-- GROUPING(page)); and CREATE TABLE ... AS SELECT, which creates the sink
-- with the query's columns and inserts the query's rows. ADD JAR, which
-- Flink needs for its connectors, is ignored with a warning: streamsql's
-- are built in. Each minute's rows come out once, when the watermark
-- passes the minute's end; the last minute at the end of the input.
--
-- Run (reads examples/data/page_views):
--   go run ./cmd/streamsql run examples/sql/page_views_uv.sql
--
-- Tested by examples/examples_test.go: the printed lines, sorted, are
-- compared with page_views_uv.expected.
ADD JAR '/opt/flink/lib/flink-sql-connector-kafka.jar';

CREATE DATABASE IF NOT EXISTS analytics;
USE analytics;

CREATE TABLE page_views (
  user_id BIGINT, page STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = '${INPUT_DIR:-examples/data/page_views}',
  'format' = 'json'
);

-- user_id 0 is the anonymous visitor: not counted.
CREATE TABLE uv_per_minute WITH ('connector' = 'print', 'print-identifier' = 'uv') AS
SELECT window_start, window_end, page, COUNT(DISTINCT user_id) AS visitors, COUNT(*) AS views, GROUPING(page) AS all_pages
FROM (SELECT * FROM TABLE(TUMBLE(TABLE page_views, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) WHERE user_id <> 0)
GROUP BY window_start, window_end, GROUPING SETS ((page), ());
