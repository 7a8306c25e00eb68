-- Nexmark q23 over data/nexmark_people (4,000 events of the nexmark connector, 8 s of event time, half of them persons, so that bidders are persons too) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO and with `dateTime` quoted in A.`dateTime`: Flink 2.2's parser refuses the file's unquoted A.dateTime (DATETIME is a reserved word of its SQL), streamsql takes both (result: final: the join's two inputs reach it in an order neither engine fixes)
-- include: include/nexmark.sql EVENTS=nexmark_people

SELECT bidder,
       price,
       channel,
       url,
       B.extra    AS bid_extra,

       P.id       AS person_id,
       name,
       emailAddress,
       creditCard,
       city,
       state,
       P.extra    AS person_extra,
       itemName,

       description,
       initialBid,
       reserve,
       A.`dateTime` AS auction_dateTime,
       expires,
       seller,
       category,
       A.extra    AS auction_extra
FROM bid B
         JOIN
     person P ON P.id = B.bidder
         JOIN
     auction A ON A.seller = B.bidder;
