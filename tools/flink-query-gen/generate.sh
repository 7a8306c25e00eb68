#!/bin/sh
# Regenerates the expected changelogs of job/testdata/flink-queries: each case
# (NAME.sql) run by Flink itself (NAME.flink). Needs Java 17, Maven (Flink
# from Maven Central) and git; run by hand when a case is added or changed,
# never in CI:
#
#   tools/flink-query-gen/generate.sh                  # every case
#   tools/flink-query-gen/generate.sh agg_ nexmark_q1  # cases whose name starts so
#
# All the chosen cases run one after another in one JVM.
#
# Nexmark q14 calls the public suite's Java function
# com.github.nexmark.flink.udf.CountChar: its source is fetched unchanged from
# nexmark/nexmark (Apache-2.0) at the commit tools/nexmark-reference pins,
# checked against upstream.sha256 and compiled beside the generator (not kept
# in this repository). NEXMARK_GIT names another clone of that repository
# (default: GitHub's).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
mvn -B -q compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
commit=6b3646c3baec701f1fa74baf938d235f742e5d3c
udf=nexmark-flink/src/main/java/com/github/nexmark/flink/udf/CountChar.java
if ! (cd target/upstream 2>/dev/null && sha256sum -c --quiet ../../upstream.sha256 2>/dev/null); then
  rm -rf target/upstream target/upstream-git
  git clone -q --filter=blob:none --no-checkout "${NEXMARK_GIT:-https://github.com/nexmark/nexmark.git}" target/upstream-git
  mkdir -p "target/upstream/$(dirname "$udf")"
  git -C target/upstream-git show "$commit:$udf" > "target/upstream/$udf"
  git -C target/upstream-git show "$commit:LICENSE" > target/upstream/LICENSE
  (cd target/upstream && sha256sum -c --quiet ../../upstream.sha256)
fi
mkdir -p target/udf-classes
javac -nowarn -cp "$(cat target/classpath.txt)" -d target/udf-classes "target/upstream/$udf"
java -Xmx1g -cp "target/classes:target/udf-classes:$(cat target/classpath.txt)" streamsql.flinkquery.Main "$root/job/testdata/flink-queries" "$@"
