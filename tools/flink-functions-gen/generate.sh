#!/bin/sh
# Regenerates planner/expr/testdata/flink/results.json: the expected result of
# every golden expression case, computed by Flink's own table runtime.
#
# Needs Java 17 and Maven (Flink artifacts come from Maven Central). Takes a few
# minutes; it is run by hand when cases change, never in CI:
#
#   tools/flink-functions-gen/generate.sh          # all cases
#   ONLY=fn/UPPER tools/flink-functions-gen/generate.sh   # cases whose id starts so
#   ONLY=fn/UPPER,fn/LOWER tools/flink-functions-gen/generate.sh   # several prefixes
#
# Step 1 asks the Go tests to write cases.json from the case list in
# planner/expr/golden_test.go; step 2 evaluates them with Flink.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="$root/planner/expr/testdata/flink"
mkdir -p "$data"
(cd "$root" && go test ./planner/expr -run 'TestFlinkGolden$' -count=1 -write-cases >/dev/null)
cd "$here"
mvn -B -q compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
java -Xmx2g -cp "target/classes:$(cat target/classpath.txt)" streamsql.flinkgen.Main "$data"
