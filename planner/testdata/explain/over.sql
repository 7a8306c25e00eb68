-- OVER aggregates (planner/over.go): ROWS and RANGE frames, bounded and
-- not, over event time and processing time, inline and by name (WINDOW),
-- inside expressions, over a UNION ALL.
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE more_bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE stats (auction BIGINT, price BIGINT, a BIGINT, b BIGINT) WITH ('connector' = 'print');
INSERT INTO stats SELECT auction, price, SUM(price) OVER w, COUNT(*) OVER w FROM bids WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 4 PRECEDING AND CURRENT ROW);
INSERT INTO stats SELECT auction, price, price - MIN(price) OVER (PARTITION BY bidder ORDER BY ts RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW), 0 FROM bids WHERE price > 0;
INSERT INTO stats SELECT auction, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt), MAX(price) OVER (PARTITION BY auction ORDER BY pt ROWS UNBOUNDED PRECEDING) FROM bids;
INSERT INTO stats SELECT auction, price, AVG(price) OVER (ORDER BY ts), 1 FROM (SELECT auction, price, ts FROM bids UNION ALL SELECT auction, price, ts FROM more_bids);
