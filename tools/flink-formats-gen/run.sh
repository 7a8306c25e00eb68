#!/usr/bin/env bash
# Regenerates the Flink golden files of formats/json, formats/csv and
# formats/cdc with Flink's own flink-json and flink-csv (version in pom.xml). Needs a JDK (17+)
# and Maven with access to Maven Central. Run on demand, not in CI:
#
#   tools/flink-formats-gen/run.sh
#
# then review and commit formats/*/testdata/flink/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
mvn -q -B package -DskipTests
java -cp "target/flink-formats-gen-1.jar:target/libs/*" streamsql.gen.Gen "$root"
java -cp "target/flink-formats-gen-1.jar:target/libs/*" streamsql.gen.AvroGen "$root"
java -cp "target/flink-formats-gen-1.jar:target/libs/*" streamsql.gen.ProjectGen "$root"
java -cp "target/flink-formats-gen-1.jar:target/libs/*" streamsql.gen.PartTimeGen "$root"
echo "wrote $root/formats/avro/testdata/flink"
echo "wrote $root/formats/{json,csv,cdc}/testdata/flink"
