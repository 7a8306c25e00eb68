-- Nexmark q17 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO
-- include: include/nexmark.sql EVENTS=nexmark

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
