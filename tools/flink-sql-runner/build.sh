#!/usr/bin/env bash
# Builds the Flink SQL runner (Flink 2.2 from Maven Central; needs a JDK 17+
# and Maven) and prints the class path to run it with:
#
#   cp=$(tools/flink-sql-runner/build.sh)
#   java -cp "$cp" streamsql.flinkrunner.Run --var BOOTSTRAP_SERVERS=... ddl_kafka.sql ddl_views.sql q0.sql
#
# cmd/streamsql-bench runs it this way beside streamsql (-nexmark).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
mvn -q -B package -DskipTests >&2
echo "$here/target/flink-sql-runner-1.jar:$here/target/libs/*"
