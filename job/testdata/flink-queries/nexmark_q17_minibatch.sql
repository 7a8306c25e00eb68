-- result: final (Flink's mini-batch folds what arrives within allow-latency or size rows, streamsql what one input batch holds, and the final tables are the same): Nexmark q17 under the public suite's table.exec.mini-batch settings, over data/nexmark through include/nexmark.sql, the query the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO
-- include: include/nexmark.sql EVENTS=nexmark
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '2 s';
SET 'table.exec.mini-batch.size' = '50000';

SELECT
     auction,
     DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
     count(*) AS total_bids,
     count(*) filter (where price < 10000) AS rank1_bids,
     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
     count(*) filter (where price >= 1000000) AS rank3_bids,
     min(price) AS min_price,
     max(price) AS max_price,
     avg(price) AS avg_price,
     sum(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
