-- Nexmark q14 over data/nexmark (4,000 events of the nexmark connector, 8 s of event time) through include/nexmark.sql (ddl_kafka.sql and ddl_views.sql), and the query is the public file's (nexmark/nexmark, Apache-2.0) without its INSERT INTO. Its function is the public Java class in Flink (tools/flink-query-gen/generate.sh) and connectors/nexmark's CountChar in streamsql
-- include: include/nexmark.sql EVENTS=nexmark

CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';

SELECT 
    auction,
    bidder,
    0.908 * price as price,
    CASE
        WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
        WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    `dateTime`,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
