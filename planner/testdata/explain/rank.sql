-- Ranking (planner/rank.go): Top-N in each strategy, deduplication, window
-- Top-N and window deduplication, through subqueries, CTEs and views.
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE top_bids (auction BIGINT, bidder BIGINT, price BIGINT, rn BIGINT, PRIMARY KEY (auction, rn) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'top', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE printed (auction BIGINT, bidder BIGINT, price BIGINT) WITH ('connector' = 'print');
CREATE TABLE first_bids (auction BIGINT, bidder BIGINT, price BIGINT) WITH ('connector' = 'kafka', 'topic' = 'first', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'format' = 'json');
CREATE TABLE windowed (auction BIGINT, price BIGINT, window_start TIMESTAMP(3), rn BIGINT) WITH ('connector' = 'kafka', 'topic' = 'win', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}', 'format' = 'json');
CREATE VIEW ranked AS SELECT auction, bidder, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bids;
-- Top-3 bids per auction with the row number, into an upsert sink keyed by
-- (auction, rn), through a view.
INSERT INTO top_bids SELECT * FROM ranked WHERE rn <= 3;
-- The row number not read: a Top-N that inserts and deletes rows.
INSERT INTO printed SELECT auction, bidder, price FROM (SELECT * FROM ranked WHERE rn < 3 AND price > 10);
-- rn = 1 by the rowtime, last row: a deduplication; and the first row by
-- processing time, insert-only into an append-only sink (a CTE).
INSERT INTO printed SELECT auction, bidder, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts DESC) AS r FROM bids) WHERE r = 1;
INSERT INTO first_bids WITH f AS (SELECT auction, bidder, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt) AS r FROM bids) SELECT auction, bidder, price FROM f WHERE r <= 1;
-- Top-2 over a GROUP BY: its SUM retracts (every row kept), its COUNT only
-- grows (the top rows kept, upserts by the group's key).
INSERT INTO printed SELECT auction, total, rn FROM (SELECT auction, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM (SELECT auction, SUM(price) AS total FROM bids GROUP BY auction)) WHERE rn <= 2;
INSERT INTO printed SELECT auction, cnt, rn FROM (SELECT auction, cnt, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn FROM (SELECT auction, COUNT(*) AS cnt FROM bids GROUP BY auction)) WHERE rn BETWEEN 2 AND 4;
-- A window Top-N over a window table function, and one over a window
-- aggregation; a window deduplication.
INSERT INTO windowed SELECT auction, price, window_start, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 3;
INSERT INTO windowed SELECT auction, total, window_start, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn FROM (SELECT auction, window_start, window_end, SUM(price) AS total FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end)) WHERE rn <= 3;
INSERT INTO windowed SELECT auction, price, window_start, 0 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, auction ORDER BY ts) AS rn FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn = 1;
