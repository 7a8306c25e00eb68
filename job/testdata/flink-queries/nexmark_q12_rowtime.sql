-- Nexmark q12 over event time instead of PROCTIME() (the public file's windows close by the wall clock, so no two runs agree), over data/nexmark_40s (4,000 events of the nexmark connector, 40 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql): the public query with bid's `dateTime` as the window's time (order: any: the rows of one watermark have no order)
-- include: include/nexmark.sql EVENTS=nexmark_40s

SELECT
    bidder,
    count(*) as bid_count,
    window_start AS starttime,
    window_end AS endtime
FROM TABLE(
        TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
