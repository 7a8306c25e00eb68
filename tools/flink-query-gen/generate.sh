#!/bin/sh
# Regenerates the expected changelogs of job/testdata/flink-queries: each case
# (NAME.sql) run by Flink itself (NAME.flink). Needs Java 17 and Maven (Flink
# from Maven Central); run by hand when a case is added or changed, never in CI:
#
#   tools/flink-query-gen/generate.sh                  # every case
#   tools/flink-query-gen/generate.sh agg_ nexmark_q1  # cases whose name starts so
#
# All the chosen cases run one after another in one JVM.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
mvn -B -q compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
java -Xmx1g -cp "target/classes:$(cat target/classpath.txt)" streamsql.flinkquery.Main "$root/job/testdata/flink-queries" "$@"
