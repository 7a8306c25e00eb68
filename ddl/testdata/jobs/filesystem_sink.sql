-- Flink 1.13-style SET syntax and the older statement-set form.
SET execution.checkpointing.interval = 1 min;
SET 'table.local-time-zone' = 'UTC';

CREATE TABLE clicks (
  url STRING,
  user_name STRING,
  click_time TIMESTAMP(3),
  dt AS DATE_FORMAT(click_time, 'yyyy-MM-dd'),
  hr AS DATE_FORMAT(click_time, 'HH')
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '100'
);

CREATE TABLE clicks_fs (
  url STRING, user_name STRING, dt STRING, hr STRING
) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem',
  'path' = 'file:///tmp/clicks',
  'format' = 'csv',
  'csv.field-delimiter' = U&'\0009',
  'sink.partition-commit.policy.kind' = 'success-file'
);

CREATE TABLE blackhole_sink WITH ('connector' = 'blackhole') LIKE clicks_fs (EXCLUDING ALL);

BEGIN STATEMENT SET;
INSERT INTO clicks_fs SELECT url, user_name, dt, hr FROM clicks WHERE url LIKE 'https://%';
INSERT INTO blackhole_sink SELECT url, user_name, dt, hr FROM clicks;
END;

EXPLAIN PLAN FOR
INSERT INTO blackhole_sink (url, user_name, dt, hr)
VALUES ('a', 'b', '2024-01-01', '00'), ('c', NULL, CAST(CURRENT_DATE AS STRING), LPAD(CAST(HOUR(LOCALTIMESTAMP) AS STRING), 2, '0'));

RESET 'table.local-time-zone';
DROP TEMPORARY TABLE IF EXISTS blackhole_sink;
