-- Nexmark q10 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO: the rows its partitioned filesystem sink receives (its files and partition commits are checked by connectors/nexmark TestQ10OverGenerator)
-- include: include/nexmark.sql EVENTS=nexmark

SELECT auction, bidder, price, `dateTime`, extra, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), DATE_FORMAT(`dateTime`, 'HH:mm')
FROM bid;
