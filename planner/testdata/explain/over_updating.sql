-- OVER aggregates over an updating input (planner/over.go, ops/over
-- updating.go), which Flink refuses (FLINK-19059): over a GROUP BY, ordered
-- by a column that is no time attribute; over a Top-1, ordered by the
-- table's rowtime (its value orders the rows: nothing waits for the
-- watermark); the default frame (RANGE UNBOUNDED PRECEDING, with peers).
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE stats (k BIGINT, a BIGINT, b BIGINT) WITH ('connector' = 'print');
INSERT INTO stats SELECT bidder, total, AVG(total) OVER (PARTITION BY bidder ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM (SELECT bidder, auction, SUM(price) AS total, MAX(ts) AS t FROM bids GROUP BY bidder, auction);
INSERT INTO stats SELECT auction, price, SUM(price) OVER (PARTITION BY bidder ORDER BY ts) FROM (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 1);
