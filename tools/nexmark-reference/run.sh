#!/usr/bin/env bash
# Regenerates connectors/nexmark/testdata/reference/*.txt with the public
# Nexmark generator and its Flink connector, fetched unchanged from
# github.com/nexmark/nexmark at a pinned commit (their checksums in
# upstream.sha256), on Flink's jars from Maven Central (version in
# pom.xml). Needs git, a JDK (17+) and Maven with access to GitHub and
# Maven Central. Run on demand, not in CI:
#
#   tools/nexmark-reference/run.sh
#
# then review and commit connectors/nexmark/testdata/reference/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
# The public sources go under target/ (not kept in the repository): the
# files upstream.sha256 lists, from the pinned commit.
commit=6b3646c3baec701f1fa74baf938d235f742e5d3c
up=target/upstream-src
if ! (cd target 2>/dev/null && sha256sum -c --quiet ../upstream.sha256 2>/dev/null); then
  rm -rf "$up" && mkdir -p target
  git clone -q --filter=blob:none --no-checkout https://github.com/nexmark/nexmark.git "$up"
  git -C "$up" checkout -q "$commit"
  while read -r _ f; do
    rel=${f#java/upstream/}
    src="$up/nexmark-flink/src/main/java/$rel"
    [ "$rel" = LICENSE ] && src="$up/LICENSE"
    mkdir -p "target/$(dirname "$f")"
    cp "$src" "target/$f"
  done < upstream.sha256
  (cd target && sha256sum -c --quiet ../upstream.sha256)
fi
mvn -q -B package -DskipTests
cp=(-cp "target/nexmark-reference-1.jar:target/libs/*")
# Each case in a JVM of its own: the generator's shared strings are made
# once per JVM, from the case's seed.
for c in $(java "${cp[@]}" streamsql.ReferenceGen "$root"); do
  java --add-opens java.base/java.util=ALL-UNNAMED "${cp[@]}" streamsql.ReferenceGen "$root" "$c"
  echo "wrote connectors/nexmark/testdata/reference/$c.txt"
done
