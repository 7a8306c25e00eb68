#!/usr/bin/env bash
# The README's test command: starts the real Kafka brokers, PostgreSQL and
# MariaDB servers, the schema registry (Apicurio) and the S3-compatible
# object store (SeaweedFS) the tests need, runs the checks and every test
# with the broker, database, registry and object-store tests enabled and
# strict, and stops the brokers and servers on every exit path.
#
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh ./ddl/...    go test on the given packages only, brokers still started
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dirs=()
pgdir=
mydir=
regjob=
regout=$(mktemp)
s3job=
s3out=$(mktemp)
cleanup() {
  local d
  # The registry and the object store start in the background; wait for
  # their starts to finish (or fail) so that their directories are known
  # and they are stopped too.
  if [ -n "$regjob" ]; then wait "$regjob" 2>/dev/null || true; fi
  d=$(sed -n 's/^export STREAMSQL_SCHEMA_REGISTRY_DIR=//p' "$regout")
  if [ -n "$d" ]; then scripts/registry.sh stop "$d" || true; fi
  rm -f "$regout"
  if [ -n "$s3job" ]; then wait "$s3job" 2>/dev/null || true; fi
  d=$(sed -n 's/^export STREAMSQL_S3_DIR=//p' "$s3out")
  if [ -n "$d" ]; then scripts/s3.sh stop "$d" || true; fi
  rm -f "$s3out"
  for d in "${dirs[@]}"; do scripts/kafka.sh stop "$d" || true; done
  if [ -n "$pgdir" ]; then scripts/pg.sh stop "$pgdir" || true; fi
  if [ -n "$mydir" ]; then scripts/mariadb.sh stop "$mydir" || true; fi
}
child=
trap cleanup EXIT
# bash runs traps only between foreground commands, so go test runs in the
# background and is waited for: a signal then stops it and the brokers at once.
trap '[ -n "$child" ] && kill "$child" 2>/dev/null; exit 130' INT TERM

# Transactions left open by tests are aborted within a second of their
# timeout, so that timeout tests do not wait for the 10 s default scan.
common=(--prop transaction.abort.timed.out.transaction.cleanup.interval.ms=1000)

# start runs a broker and sets $addr; it must run in this shell (not in a
# command substitution) so that the trap above sees the broker's directory.
start() {
  local out
  out=$(scripts/kafka.sh start "$@")
  dirs+=("$(sed -n 's/^export STREAMSQL_KAFKA_DIR=//p' <<<"$out")")
  addr=$(sed -n 's/^export STREAMSQL_KAFKA_BOOTSTRAP=//p' <<<"$out")
}

# The schema registry takes longest to start (and, the first time, to
# build): it starts in the background while the rest starts. Kafka's jars
# are fetched first, so that two Maven runs never share the local
# repository at once (Maven does not lock it).
scripts/kafka.sh fetch
echo "== starting the schema registry (Apicurio Registry, in the background)"
scripts/registry.sh start >"$regout" &
regjob=$!
# The S3 server (SeaweedFS) is built from the Go module proxy the first
# time (minutes; cached after) and starts in seconds: in the background too.
echo "== starting the S3-compatible object store (SeaweedFS, in the background)"
scripts/s3.sh start >"$s3out" &
s3job=$!

echo "== starting Kafka brokers (transaction version 2, and 1)"
start "${common[@]}"
STREAMSQL_KAFKA_BOOTSTRAP=$addr
start --tv1 "${common[@]}"
STREAMSQL_KAFKA_BOOTSTRAP_TV1=$addr
export STREAMSQL_KAFKA_BOOTSTRAP STREAMSQL_KAFKA_BOOTSTRAP_TV1
# Broker tests fail, never skip, when a broker is missing.
export CI=true
echo "   tv2: $STREAMSQL_KAFKA_BOOTSTRAP  tv1: $STREAMSQL_KAFKA_BOOTSTRAP_TV1"

# The jdbc connector's tests need real database servers. Each start's
# output is kept in a variable first, so that the trap sees the server's
# directory even when a later step fails.
echo "== starting PostgreSQL and MariaDB"
out=$(scripts/pg.sh start)
pgdir=$(sed -n 's/^export STREAMSQL_PG_DIR=//p' <<<"$out")
eval "$out"
out=$(scripts/mariadb.sh start)
mydir=$(sed -n 's/^export STREAMSQL_MYSQL_DIR=//p' <<<"$out")
eval "$out"
echo "   postgresql: $STREAMSQL_PG_URL  mariadb: $STREAMSQL_MYSQL_URL"


pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(./...)
  echo "== gofmt"
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then echo "not gofmt-formatted:"; echo "$unformatted"; exit 1; fi
  echo "== go vet"
  go vet ./...
  echo "== staticcheck"
  go tool staticcheck ./...
fi
# The registry's first build on a fresh machine overlaps gofmt, vet and
# staticcheck above; the tests need it from here on.
echo "== waiting for the schema registry"
if ! wait "$regjob"; then regjob=; echo "the schema registry did not start"; exit 1; fi
regjob=
eval "$(cat "$regout")"
echo "   registry: $STREAMSQL_SCHEMA_REGISTRY_URL"
echo "== waiting for the object store"
if ! wait "$s3job"; then s3job=; echo "the S3 server did not start"; exit 1; fi
s3job=
eval "$(cat "$s3out")"
export STREAMSQL_S3_ENDPOINT STREAMSQL_S3_ACCESS_KEY STREAMSQL_S3_SECRET_KEY STREAMSQL_S3_DIR
echo "   s3: $STREAMSQL_S3_ENDPOINT"
echo "== go test"
# connectors/kafka under -race, the longest package, takes 7-12 minutes on
# 2 cores depending on load (its crash and scale-out tests run real
# processes against real brokers); 30m per package catches a hang without
# failing a slow but healthy run.
go test -race -count=1 -timeout 30m "${pkgs[@]}" &
child=$!
wait "$child"
# The pebble state backend's memory test measures the process's resident
# memory, which the race detector's shadow memory inflates: under -race it
# skips, and it runs here without the race detector.
if [ "${pkgs[*]}" = ./... ]; then
  go test -count=1 -run '^TestMemoryStaysFlat$' ./state/lsm/ &
  child=$!
  wait "$child"
fi
