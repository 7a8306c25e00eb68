-- nexmark_q0.sql: the Nexmark benchmark's events from the nexmark connector,
-- with no broker.
--
-- Shows: the public generator table of the Nexmark queries (ddl_gen.sql's
-- columns and options, with Flink's nexmark connector's option names), made
-- reproducible by 'seed' and 'base-time'; the bid view of ddl_views.sql; and
-- a pass-through of the bids, as the suite's q0 does (into print instead of
-- blackhole), with q22's SPLIT_INDEX of the bid's URL. 'events.num' bounds
-- the source: 20 events, of which 18 are bids.
--
-- Run:
--   go run ./cmd/streamsql run examples/sql/nexmark_q0.sql
--
-- The public query files run unchanged over the same table: see
-- docs/nexmark.md. Tested by examples/examples_test.go: the printed lines are
-- compared with nexmark_q0.expected.
CREATE TABLE datagen (
    event_type int,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR,
               state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
                `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
            `dateTime` TIMESTAMP(3), extra VARCHAR>,
    `dateTime` AS
        CASE
            WHEN event_type = 0 THEN person.`dateTime`
            WHEN event_type = 1 THEN auction.`dateTime`
            ELSE bid.`dateTime`
        END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'first-event.rate' = '10',
    'events.num' = '20',
    'seed' = '42',
    'base-time' = '2024-01-01 00:00:00'
);

CREATE VIEW bid AS
SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, `dateTime`, bid.extra
FROM datagen WHERE event_type = 2;

CREATE TABLE bids (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, dir1 VARCHAR, `dateTime` TIMESTAMP(3)
) WITH ('connector' = 'print', 'print-identifier' = 'bid');

INSERT INTO bids
SELECT auction, bidder, price, channel, SPLIT_INDEX(url, '/', 3), `dateTime` FROM bid;
