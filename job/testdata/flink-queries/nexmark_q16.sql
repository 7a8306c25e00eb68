-- Nexmark q16 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO
-- include: include/nexmark.sql EVENTS=nexmark

SELECT
    channel,
    DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') as `day`,
    max(DATE_FORMAT(`dateTime`, 'HH:mm')) as `minute`,
    count(*) AS total_bids,
    count(*) filter (where price < 10000) AS rank1_bids,
    count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
    count(*) filter (where price >= 1000000) AS rank3_bids,
    count(distinct bidder) AS total_bidders,
    count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
    count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
    count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
    count(distinct auction) AS total_auctions,
    count(distinct auction) filter (where price < 10000) AS rank1_auctions,
    count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
    count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY channel, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
