#!/usr/bin/env bash
# The recorded run of BENCHMARKS.md: every figure of its "Recorded run"
# tables measured at one commit, each part on a fresh broker
# (scripts/bench.sh), its output kept in cmd/streamsql-bench/results/ and its
# tables written into BENCHMARKS.md between the <!-- recorded:PART -->
# markers:
#
#   suite          the throughput and latency scenarios, free-running
#   suite-taskset  the same with every child pinned to CPU 0
#   nexmark        every Nexmark query, streamsql beside Flink 2.2, one core each
#   scaling        the scaling sweep (--scaling)
#
# Usage:
#   scripts/bench-record.sh             # the recorded run (about 1.5 h on a quiet 2-core machine)
#   scripts/bench-record.sh --scaling   # also the scaling sweep
#   scripts/bench-record.sh --quick     # a short run of every part, to check the machinery
#   scripts/bench-record.sh --only nexmark,suite   # some parts (comma-separated)
#   scripts/bench-record.sh --only nexmark --nexmark-queries q0,q21 --nexmark-events 1000000
#
# --nexmark-queries, --nexmark-events N and --nexmark-runs R override the
# Nexmark part's queries (default all), input size (N and 2N events) and
# runs per query, engine and size; with the
# defaults (2,000,000 and 3) the part takes over an hour: Flink starts a
# JVM and a MiniCluster for every run.
#
# Run it on a quiet machine (nothing else running: the figures are compared
# with targets) from a clean checkout of the commit to record; a dirty tree
# is refused unless --dirty, and then the results are named "-dirty". Flink
# runs when java and mvn are on PATH (tools/flink-sql-runner); otherwise the
# Nexmark table says that streamsql ran alone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

command="scripts/bench-record.sh $*"
quick= scaling= dirty= only= nexmark_events=2000000 nexmark_runs=3 nexmark_queries=all
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--scaling) scaling=1 ;;
	--dirty) dirty=1 ;;
	--only) only=$2; shift ;;
	--nexmark-events) nexmark_events=$2; shift ;;
	--nexmark-runs) nexmark_runs=$2; shift ;;
	--nexmark-queries) nexmark_queries=$2; shift ;;
	*) echo "bench-record.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

commit=$(git rev-parse --short HEAD)
if ! git diff --quiet HEAD --; then
	if [ -z "$dirty" ]; then
		echo "bench-record.sh: the tree has uncommitted changes; commit them, or pass --dirty" >&2
		exit 2
	fi
	commit=$commit-dirty
fi
stamp=$(date -u +%Y-%m-%d)-$commit
[ -n "$quick" ] && stamp=$stamp-quick
results=cmd/streamsql-bench/results
mkdir -p "$results"
out=$results/$stamp

suite_args=(-records 1000000 -runs 3)
nexmark_args=(-nexmark "$nexmark_queries" -nexmark-events "$nexmark_events" -nexmark-runs "$nexmark_runs")
scaling_args=(-scaling -records 1000000 -runs 3)
if [ -n "$quick" ]; then
	suite_args=(-records 100000 -runs 1 -latency-runs 1 -latency-seconds 3)
	nexmark_args=(-nexmark "$nexmark_queries" -nexmark-events 100000 -nexmark-runs 1)
	scaling_args=(-scaling -records 100000 -runs 1)
fi

{
	echo "recorded run $stamp"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git rev-parse HEAD)"
	echo "command: $command"
	echo "machine: $(nproc) CPUs, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -sr)"
	echo "go: $(go version)"
	echo "java: $(java -version 2>&1 | head -1 || echo none)"
} >"$out-machine.txt"

want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# run PART ARGS...: one part on a fresh broker; keeps its output, JSON and
# Markdown, and the load average before and after.
run() {
	local part=$1
	shift
	echo "== $part: scripts/bench.sh $*" | tee -a "$out-machine.txt"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out-machine.txt"
	scripts/bench.sh "$@" -json "$out-$part.json" -md "$out-$part.md" | tee "$out-$part.txt"
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out-machine.txt"
}

want suite && run suite "${suite_args[@]}"
want suite-taskset && run suite-taskset "${suite_args[@]}" -taskset 0
want nexmark && run nexmark "${nexmark_args[@]}"
if [ -n "$scaling" ] && want scaling; then
	run scaling "${scaling_args[@]}"
fi

# Put each part's tables between its markers in BENCHMARKS.md, and the
# run's name into the recorded:header marker.
replace() {
	local part=$1 file=$2
	[ -f "$file" ] || return 0
	awk -v part="$part" -v file="$file" '
		$0 == "<!-- recorded:" part " -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
		$0 == "<!-- /recorded:" part " -->" { skip = 0 }
		!skip { print }
	' BENCHMARKS.md >BENCHMARKS.md.new
	mv BENCHMARKS.md.new BENCHMARKS.md
}
header=$(mktemp)
trap 'rm -f "$header"' EXIT
{
	echo "Run \`$stamp\` ($(sed -n 's/^date: //p' "$out-machine.txt"), commit $(sed -n 's/^commit: //p' "$out-machine.txt" | cut -c1-12)):"
	echo "$(sed -n 's/^machine: //p' "$out-machine.txt"); load averages per part in \`$out-machine.txt\`;"
	echo "taken with \`$command\`."
} >"$header"
replace header "$header"
for part in suite suite-taskset nexmark scaling; do
	replace "$part" "$out-$part.md"
done
echo "wrote $out-* and the tables of BENCHMARKS.md"
