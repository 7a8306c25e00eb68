-- Source: https://nightlies.apache.org/flink/flink-docs-master/docs/dev/table/sql/queries/hints/
-- (apache/flink, docs/content/docs/dev/table/sql/queries/hints.md)
CREATE TABLE kafka_table1 (id BIGINT, name STRING, age INT) WITH ('connector' = 'kafka'); -- (elided options filled in)
CREATE TABLE kafka_table2 (id BIGINT, name STRING, age INT) WITH ('connector' = 'kafka'); -- (elided options filled in)

-- override table options in query source
select id, name from kafka_table1 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */;
-- ====
-- override table options in join
select * from
    kafka_table1 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ t1
    join
    kafka_table2 /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ t2
    on t1.id = t2.id;
-- ====
-- override table options for INSERT target table
insert into kafka_table1 /*+ OPTIONS('sink.partitioner'='round-robin') */ select * from kafka_table2;
-- ====
SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;
-- ====
SELECT /*+ SHUFFLE_HASH(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;
