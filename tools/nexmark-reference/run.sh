#!/usr/bin/env bash
# Regenerates connectors/nexmark/testdata/reference/*.txt with the public
# Nexmark generator and its Flink connector (java/upstream, unchanged) on
# Flink's jars from Maven Central (version in pom.xml). Needs a JDK (17+)
# and Maven with access to Maven Central. Run on demand, not in CI:
#
#   tools/nexmark-reference/run.sh
#
# then review and commit connectors/nexmark/testdata/reference/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
sha256sum -c --quiet upstream.sha256
mvn -q -B package -DskipTests
cp=(-cp "target/nexmark-reference-1.jar:target/libs/*")
# Each case in a JVM of its own: the generator's shared strings are made
# once per JVM, from the case's seed.
for c in $(java "${cp[@]}" streamsql.ReferenceGen "$root"); do
  java --add-opens java.base/java.util=ALL-UNNAMED "${cp[@]}" streamsql.ReferenceGen "$root" "$c"
  echo "wrote connectors/nexmark/testdata/reference/$c.txt"
done
