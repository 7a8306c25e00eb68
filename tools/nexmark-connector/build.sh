#!/usr/bin/env bash
# Builds the public Nexmark connector for Flink (the nexmark-flink module of
# github.com/nexmark/nexmark, unchanged, at a pinned commit) against Flink
# 2.2.1 and prints the path of its jar, so that cmd/streamsql-bench can run
# Flink over the public ddl_gen.sql (the 'nexmark' connector) beside
# streamsql:
#
#   jar=$(tools/nexmark-connector/build.sh)
#   java -cp "$(tools/flink-sql-runner/build.sh):$jar" streamsql.flinkrunner.Run ... ddl_gen.sql ddl_views.sql q0.sql
#
# The repository's pom names Flink 2.0-preview1; the build overrides it with
# -Dflink.version (Flink's jars from Maven Central). Needs git, a JDK (17+)
# and Maven with access to GitHub (or NEXMARK_GIT: another clone of the
# repository that holds the commit) and Maven Central. The jar is cached
# under target/, named by commit and Flink version: a second run prints it
# without building.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
commit=6b3646c3baec701f1fa74baf938d235f742e5d3c
flink=2.2.1
repo="${NEXMARK_GIT:-https://github.com/nexmark/nexmark.git}"
jar="$here/target/nexmark-flink-${commit:0:12}-flink-$flink.jar"
if [ -s "$jar" ]; then
  echo "$jar"
  exit 0
fi
src="$here/target/src"
rm -rf "$src" && mkdir -p "$here/target"
git clone -q --no-checkout "$repo" "$src" >&2
git -C "$src" checkout -q "$commit" >&2
(cd "$src" && mvn -q -B -pl nexmark-flink -am package -DskipTests -Dflink.version="$flink") >&2
# The shaded jar, as the public suite puts it into Flink's lib/.
cp "$src/nexmark-flink/target/nexmark-flink-0.3-SNAPSHOT.jar" "$jar.tmp"
mv "$jar.tmp" "$jar"
echo "$jar"
