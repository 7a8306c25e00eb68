#!/bin/sh
# Writes the Nexmark events the nexmark_q*.sql cases of job/testdata/flink-queries
# read (data/NAME/events.json): the nexmark connector's events for a fixed seed
# and base time, one JSON object a line in the shape of ddl_kafka.sql's table,
# written by streamsql's filesystem sink in the json format. Run by hand (Go
# only), then regenerate the cases' .flink files with generate.sh.
#
#   data/nexmark      4,000 events at 500 events/s: 8 s of event time
#   data/nexmark_40s  4,000 events at 100 events/s: 40 s, four 10 s windows
#   data/nexmark_people  4,000 events at 500 events/s, half of them persons: the
#                     person ids reach the bidders' (the public generator's bidder
#                     is 1,000 above the person it stands for), which q23 joins
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/job/testdata/flink-queries/data"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/streamsql" ./cmd/streamsql)
cols='event_type int,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR,
        state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
        `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
        `dateTime` TIMESTAMP(3), extra VARCHAR>'
# events NAME RATE [OPTIONS]: 4,000 events of seed 7 from 2024-03-01 10:00 at RATE
# events/s, with more of the connector's options if given.
events() {
  cat > "$tmp/$1.sql" <<SQL
SET 'execution.checkpointing.dir' = '$tmp/checkpoints';
CREATE TABLE gen ($cols) WITH ('connector' = 'nexmark', 'events.num' = '4000', 'seed' = '7',
    'base-time' = '2024-03-01 10:00:00', 'first-event.rate' = '$2'${3:+, $3});
CREATE TABLE out ($cols) WITH ('connector' = 'filesystem', 'path' = '$tmp/$1', 'format' = 'json');
INSERT INTO out SELECT * FROM gen;
SQL
  (cd "$tmp" && ./streamsql run "$1.sql" >"$tmp/$1.log" 2>&1) || { cat "$tmp/$1.log"; exit 1; }
  mkdir -p "$out/$1"
  cat "$tmp/$1"/*.json > "$out/$1/events.json"
  echo "wrote $out/$1/events.json: $(wc -l < "$out/$1/events.json") events"
}
events nexmark 500
events nexmark_40s 100
events nexmark_people 500 "'person.proportion' = '25', 'auction.proportion' = '3', 'bid.proportion' = '22'"
