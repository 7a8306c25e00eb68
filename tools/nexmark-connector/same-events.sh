#!/usr/bin/env bash
# Checks that streamsql's nexmark connector and the public one on Flink 2.2.1
# (built by build.sh) produce the same events for the public ddl_gen.sql with
# the settings cmd/streamsql-bench -nexmark-ddl gen uses (10,000,000
# events/s, 1 person, 3 auctions, 46 bids per 50 events, bounded by
# events.num): the same number of events and, event by event, the same type
# and person or auction id (same-events.sql). Needs go, git, a JDK 17+ and
# Maven (GitHub and Maven Central on first use). Run on demand, not in CI:
#
#   tools/nexmark-connector/same-events.sh [EVENTS]     # default 1000000
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${1:-1000000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gen="$root/ddl/testdata/nexmark/ddl_gen.sql"
vars=(TPS=10000000 "EVENTS_NUM=$n" PERSON_PROPORTION=1 AUCTION_PROPORTION=3 BID_PROPORTION=46)

cp="$("$root/tools/flink-sql-runner/build.sh"):$("$here/build.sh")"
flinkvars=()
for v in "${vars[@]}"; do flinkvars+=(--var "$v"); done
java -cp "$cp" streamsql.flinkrunner.Run "${flinkvars[@]}" "$gen" "$here/same-events.sql" |
  grep '^+I\[' >"$tmp/flink.txt"

(cd "$root" && go build -o "$tmp/streamsql" ./cmd/streamsql)
cat "$gen" "$here/same-events.sql" >"$tmp/job.sql"
env "${vars[@]}" "$tmp/streamsql" run --log-format json \
  --set "execution.checkpointing.dir=$tmp/checkpoints" "$tmp/job.sql" 2>"$tmp/streamsql.log" |
  grep '^+I\[' >"$tmp/streamsql.txt"

for e in streamsql flink; do
  printf '%-9s %9d events: %s\n' "$e" "$(wc -l <"$tmp/$e.txt")" \
    "$(cut -d, -f1 "$tmp/$e.txt" | sort | uniq -c | awk '{printf "%s type %s  ", $1, substr($2, 4)}')"
done
if ! cmp -s "$tmp/streamsql.txt" "$tmp/flink.txt"; then
  echo "the engines' events differ; first difference:" >&2
  diff "$tmp/streamsql.txt" "$tmp/flink.txt" | head -5 >&2
  exit 1
fi
echo "same $n events (type, person id, auction id) through both engines"
