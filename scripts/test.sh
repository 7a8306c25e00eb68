#!/usr/bin/env bash
# The README's test command: starts the real Kafka brokers the tests need,
# runs the checks and every test with the broker tests enabled and strict,
# and stops the brokers on every exit path.
#
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh ./ddl/...    go test on the given packages only, brokers still started
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dirs=()
cleanup() {
  local d
  for d in "${dirs[@]}"; do scripts/kafka.sh stop "$d" || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Transactions left open by tests are aborted within a second of their
# timeout, so that timeout tests do not wait for the 10 s default scan.
common=(--prop transaction.abort.timed.out.transaction.cleanup.interval.ms=1000)

start() {
  local out
  out=$(scripts/kafka.sh start "$@")
  dirs+=("$(sed -n 's/^STREAMSQL_KAFKA_DIR=//p' <<<"$out")")
  sed -n 's/^STREAMSQL_KAFKA_BOOTSTRAP=//p' <<<"$out"
}

echo "== starting Kafka brokers (transaction version 2, and 1)"
STREAMSQL_KAFKA_BOOTSTRAP=$(start "${common[@]}")
STREAMSQL_KAFKA_BOOTSTRAP_TV1=$(start --tv1 "${common[@]}")
export STREAMSQL_KAFKA_BOOTSTRAP STREAMSQL_KAFKA_BOOTSTRAP_TV1
# Broker tests fail, never skip, when a broker is missing.
export CI=true
echo "   tv2: $STREAMSQL_KAFKA_BOOTSTRAP  tv1: $STREAMSQL_KAFKA_BOOTSTRAP_TV1"

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
echo "== go test"
go test -race -count=1 -timeout 15m "${pkgs[@]}"
