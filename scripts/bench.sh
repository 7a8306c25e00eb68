#!/usr/bin/env bash
# Runs the benchmark program (cmd/streamsql-bench) against a fresh real
# Kafka broker, which it starts and stops. Arguments go to the program, e.g.
#
#   scripts/bench.sh                          # defaults: 1,000,000 records, 6 partitions, 3 runs
#   scripts/bench.sh -taskset 0               # every child (pipes, CPU hogs) pinned to CPU 0
#   scripts/bench.sh -scaling                 # 4/16/64 partitions, 100 B/1 KB/10 KB payloads, 1/4/16 pipelines
#   scripts/bench.sh -records 200000 -runs 1 -json /tmp/bench.json
#   scripts/bench.sh -scale-out 1,2,4 -records 4000000   # N `streamsql run` instances of one job
#   scripts/bench.sh -nexmark all             # the Nexmark queries, streamsql beside Flink 2.2, each on one core
#   scripts/bench.sh -nexmark q0,q21 -nexmark-events 200000 -nexmark-runs 1 -flink off
#
# BENCHMARKS.md says what each pipe is and how to read the tables.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir=
# The binary goes to a directory of this run's own: the benchmark starts its
# children from its own path, so a second bench.sh building to a shared path
# would swap the children of a run under way.
bin=$(mktemp -d)
trap '[ -n "$dir" ] && scripts/kafka.sh stop "$dir"; rm -rf "$bin"' EXIT
go build -o "$bin/streamsql-bench" ./cmd/streamsql-bench
out=$(scripts/kafka.sh start)
dir=$(sed -n 's/^export STREAMSQL_KAFKA_DIR=//p' <<<"$out")
bootstrap=$(sed -n 's/^export STREAMSQL_KAFKA_BOOTSTRAP=//p' <<<"$out")
# The scale-out mode reads the broker's PID from $STREAMSQL_KAFKA_DIR/pid
# to report its CPU time.
STREAMSQL_KAFKA_DIR=$dir "$bin/streamsql-bench" -bootstrap "$bootstrap" "$@"
