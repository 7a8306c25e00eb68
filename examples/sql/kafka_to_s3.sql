-- kafka_to_s3.sql: archive a Kafka topic into S3-compatible object storage,
-- exactly once, with the job's checkpoints in the bucket too.
--
-- Shows: the filesystem connector on s3:// (JSON files partitioned by day,
-- dt=2024-05-20/) and checkpoints on s3:// (execution.checkpointing.dir),
-- for jobs whose disks do not outlive them (containers, Kubernetes). Each
-- file is written as a multipart upload, invisible until the checkpoint
-- that holds it completes and the upload is completed; a restarted job
-- completes what its last checkpoint left pending and aborts the rest.
-- The job's lock is a lease on an object in the checkpoint folder (the
-- server must honour conditional writes; AWS S3, MinIO, SeaweedFS do).
-- docs/s3.md has the details, and what to set up against leftover uploads
-- and old checkpoints (costs and cleanup).
--
-- Run against a local S3-compatible server (SeaweedFS, built and started by
-- the test script; it prints the variables below) and a broker whose topic
-- 'orders' holds the sample orders (examples/data/kafka_to_s3/orders.jsonl;
-- or --embedded-kafka --load orders=... instead of KAFKA_BOOTSTRAP) (Ctrl-C stops):
--   go run ./cmd/streamsql topic load --bootstrap-servers 127.0.0.1:9092 \
--     --topic orders examples/data/kafka_to_s3/orders.jsonl
--   eval "$(scripts/s3.sh start)"
--   S3_ENDPOINT=$STREAMSQL_S3_ENDPOINT S3_ACCESS_KEY=$STREAMSQL_S3_ACCESS_KEY \
--   S3_SECRET_KEY=$STREAMSQL_S3_SECRET_KEY S3_BASE=s3://streamsql-test/example \
--   KAFKA_BOOTSTRAP=127.0.0.1:9092 go run ./cmd/streamsql run examples/sql/kafka_to_s3.sql
--   scripts/s3.sh stop "$STREAMSQL_S3_DIR"
-- Against AWS S3 leave S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY unset:
-- the AWS credential chain (environment, ~/.aws, instance and pod roles)
-- and region (AWS_REGION) apply.
--
-- Tested by examples/run_test.go: it writes the sample orders to a topic of
-- its own, runs the job bounded at that topic's latest offset against the
-- test's S3 server (a prefix of its own), and reads the committed objects
-- back with the S3 SDK into kafka_to_s3.expected (partition folder, then
-- the line); no multipart upload may remain.
SET 'execution.checkpointing.interval' = '5s';
SET 'execution.checkpointing.dir' = '${S3_BASE:-s3://my-bucket/streamsql}/checkpoints';
SET 's3.endpoint' = '${S3_ENDPOINT:-}';
SET 's3.access-key' = '${S3_ACCESS_KEY:-}';
SET 's3.secret-key' = '${S3_SECRET_KEY:-}';

CREATE TABLE orders (
  id BIGINT, amount DECIMAL(10, 2), customer STRING, ts TIMESTAMP(3)
) WITH (
  'connector' = 'kafka', 'topic' = 'orders',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

CREATE TABLE orders_archive (
  id BIGINT, amount DECIMAL(10, 2), customer STRING, ts TIMESTAMP(3), dt STRING
) PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem',
  'path' = '${S3_BASE:-s3://my-bucket/streamsql}/orders',
  'format' = 'json'
);

INSERT INTO orders_archive SELECT id, amount, customer, ts, DATE_FORMAT(ts, 'yyyy-MM-dd') FROM orders;
