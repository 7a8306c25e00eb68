CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE appended (auction BIGINT, price BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
CREATE TABLE sink (auction BIGINT, price BIGINT) WITH ('connector' = 'blackhole');
-- RANK and DENSE_RANK over a stream: Flink 2.2 refuses them too.
INSERT INTO sink SELECT auction, price FROM (SELECT *, RANK() OVER (PARTITION BY auction ORDER BY price) AS r FROM bids) WHERE r <= 3;
INSERT INTO sink SELECT auction, price FROM (SELECT *, DENSE_RANK() OVER (PARTITION BY auction ORDER BY price) AS r FROM bids) WHERE r <= 3;
-- A lower bound only.
INSERT INTO sink SELECT auction, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) AS r FROM bids) WHERE r > 3;
-- A Top-N updates: an append-only sink cannot take it.
INSERT INTO appended SELECT auction, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) AS r FROM bids) WHERE r <= 3;
-- ROW_NUMBER inside an expression; two ranking functions.
INSERT INTO sink SELECT auction, r FROM (SELECT auction, 1 + ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) AS r FROM bids) WHERE r <= 3;
INSERT INTO sink SELECT auction, r FROM (SELECT auction, ROW_NUMBER() OVER (ORDER BY price) AS r, ROW_NUMBER() OVER (ORDER BY ts) AS s FROM bids) WHERE r <= 3;
-- A Top-N over a window table function not partitioned by its window; a
-- window Top-N with RANK.
INSERT INTO sink SELECT auction, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) AS r FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) WHERE r <= 3;
INSERT INTO sink SELECT auction, price FROM (SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price) AS r FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) WHERE r <= 3;
-- ROW_NUMBER without a filter on it, ordered by a column that is not a
-- time attribute.
INSERT INTO sink SELECT auction, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) FROM bids;
-- OVER: descending, two windows, no ORDER BY, FOLLOWING, not a time
-- attribute, over updates, in WHERE, with GROUP BY, FIRST_VALUE over a
-- bounded frame, an undefined window name.
INSERT INTO sink SELECT auction, SUM(price) OVER (PARTITION BY auction ORDER BY ts DESC) FROM bids;
INSERT INTO sink SELECT SUM(price) OVER (ORDER BY ts), MAX(price) OVER (ORDER BY pt) FROM bids;
INSERT INTO sink SELECT auction, SUM(price) OVER (PARTITION BY auction) FROM bids;
INSERT INTO sink SELECT auction, SUM(price) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM bids;
INSERT INTO sink SELECT auction, SUM(price) OVER (ORDER BY bidder) FROM bids;
INSERT INTO sink SELECT auction, SUM(total) OVER (ORDER BY t RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) FROM (SELECT auction, SUM(price) AS total, MAX(pt) AS t FROM bids GROUP BY auction);
INSERT INTO sink SELECT auction, SUM(DISTINCT total) OVER (ORDER BY t) FROM (SELECT auction, SUM(price) AS total, MAX(pt) AS t FROM bids GROUP BY auction);
INSERT INTO sink SELECT auction, price FROM bids WHERE SUM(price) OVER (ORDER BY ts) > 3;
-- OVER beside GROUP BY runs over the aggregation's rows, but not with
-- grouping sets, a *, or IN over a grouping key.
INSERT INTO sink SELECT auction, SUM(COUNT(*)) OVER (ORDER BY auction) FROM bids GROUP BY ROLLUP (auction);
INSERT INTO sink SELECT *, ROW_NUMBER() OVER (ORDER BY auction) FROM bids GROUP BY auction, price;
INSERT INTO sink SELECT auction, SUM(CASE WHEN auction IN (1, 2) THEN 1 ELSE 0 END) OVER (ORDER BY auction) FROM bids GROUP BY auction;
INSERT INTO sink SELECT auction, FIRST_VALUE(price) OVER (ORDER BY ts ROWS 3 PRECEDING) FROM bids;
INSERT INTO sink SELECT auction, SUM(price) OVER w FROM bids WINDOW v AS (ORDER BY ts);
-- An OVER over updating input cannot be ordered by processing time.
CREATE TABLE changes (auction BIGINT, price BIGINT, pt AS PROCTIME()) WITH ('connector' = 'kafka', 'topic' = 'changes', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'debezium-json');
INSERT INTO sink SELECT auction, SUM(price) OVER (ORDER BY pt) FROM changes;
