-- Nexmark q11 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO (order: any: the rows of one watermark have no order)
-- include: include/nexmark.sql EVENTS=nexmark

SELECT
    B.bidder,
    count(*) as bid_count,
    SESSION_START(B.`dateTime`, INTERVAL '10' SECOND) as starttime,
    SESSION_END(B.`dateTime`, INTERVAL '10' SECOND) as endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.`dateTime`, INTERVAL '10' SECOND);
