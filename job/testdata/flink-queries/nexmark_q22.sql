-- Nexmark q22 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO
-- include: include/nexmark.sql EVENTS=nexmark

SELECT
    auction, bidder, price, channel,
    SPLIT_INDEX(url, '/', 3) as dir1,
    SPLIT_INDEX(url, '/', 4) as dir2,
    SPLIT_INDEX(url, '/', 5) as dir3 FROM bid;
