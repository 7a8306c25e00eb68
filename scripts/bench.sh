#!/usr/bin/env bash
# Runs the benchmark program (cmd/streamsql-bench) against a fresh real
# Kafka broker, which it starts and stops. Arguments go to the program, e.g.
#
#   scripts/bench.sh                          # defaults: 1,000,000 records, 6 partitions, 3 runs
#   scripts/bench.sh -taskset 0               # every child (pipes, CPU hogs) pinned to CPU 0
#   scripts/bench.sh -scaling                 # 4/16/64 partitions, 100 B/1 KB/10 KB payloads, 1/4/16 pipelines
#   scripts/bench.sh -records 200000 -runs 1 -json /tmp/bench.json
#   scripts/bench.sh -scale-out 1,2,4 -records 4000000   # N `streamsql run` instances of one job
#
# BENCHMARKS.md says what each pipe is and how to read the tables.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=
trap '[ -n "$dir" ] && scripts/kafka.sh stop "$dir"' EXIT
out=$(scripts/kafka.sh start)
dir=$(sed -n 's/^export STREAMSQL_KAFKA_DIR=//p' <<<"$out")
bootstrap=$(sed -n 's/^export STREAMSQL_KAFKA_BOOTSTRAP=//p' <<<"$out")
go build -o "${TMPDIR:-/tmp}/streamsql-bench" ./cmd/streamsql-bench
# The scale-out mode reads the broker's PID from $STREAMSQL_KAFKA_DIR/pid
# to report its CPU time.
STREAMSQL_KAFKA_DIR=$dir "${TMPDIR:-/tmp}/streamsql-bench" -bootstrap "$bootstrap" "$@"
