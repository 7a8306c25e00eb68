-- Nexmark q20 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO, its columns named as the file's sink names them (the query alone has two columns `dateTime` and two `extra`, which the cast around it could not tell apart) (result: final: the join's two inputs reach it in an order neither engine fixes)
-- include: include/nexmark.sql EVENTS=nexmark

SELECT
    auction, bidder, price, channel, url, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra,
    itemName, description, initialBid, reserve, A.`dateTime` AS auction_dateTime, expires, seller, category, A.extra AS auction_extra
FROM
    bid AS B INNER JOIN auction AS A on B.auction = A.id
WHERE A.category = 10;
