#!/usr/bin/env bash
# Runs a real Confluent-compatible schema registry for streamsql's
# avro-confluent tests: Apicurio Registry 2.4.2.Final with in-memory
# storage, serving the Confluent API under /apis/ccompat/v7, built from
# Maven Central with Java 17 and Maven (scripts/registry-rig, which says
# what it changes and why).
#
#   scripts/registry.sh fetch
#       Builds the registry (a Quarkus application) into the cache, once.
#       Cache: $STREAMSQL_CACHE (default ~/.cache/streamsql).
#   scripts/registry.sh start
#       Starts it on a free port of 127.0.0.1 in a new temporary directory,
#       waits until its Confluent API answers, and prints
#           export STREAMSQL_SCHEMA_REGISTRY_URL=http://127.0.0.1:PORT/apis/ccompat/v7
#           export STREAMSQL_SCHEMA_REGISTRY_DIR=/tmp/streamsql-registry.XXXX
#       so that `eval "$(scripts/registry.sh start)"` exports both.
#   scripts/registry.sh stop DIR
#       Stops the registry started in DIR (that PID only) and removes DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rig=$here/registry-rig
version=$(sed -n 's:.*<apicurio.version>\(.*\)</apicurio.version>.*:\1:p' "$rig/pom.xml")
cache=${STREAMSQL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streamsql}
# The cache key covers the rig's files, so a changed rig is rebuilt.
key=$(cat "$rig/pom.xml" "$rig"/src/main/java/streamsql/rig/*.java "$rig/src/main/resources/application.properties" | sha256sum | cut -c1-12)
app=$cache/apicurio-registry-$version-$key

die() { echo "registry.sh: $*" >&2; exit 1; }

fetch() {
  if [ -f "$app/.complete" ]; then return 0; fi
  command -v mvn >/dev/null || die "Maven (mvn) is needed to build the registry; install it (apt-get install maven)"
  command -v javac >/dev/null || die "a Java 17 JDK is needed to build and run the registry; install it (apt-get install openjdk-17-jdk-headless)"
  echo "registry.sh: building Apicurio Registry $version from Maven Central into $app" >&2
  rm -rf "$app"
  mkdir -p "$app"
  local build
  build=$(mktemp -d)
  # Build in a temporary copy so the work tree stays clean.
  cp -r "$rig/pom.xml" "$rig/src" "$build/"
  (cd "$build" && mvn -q -B package -DskipTests) >&2 || { rm -rf "$build" "$app"; die "mvn failed to build the registry"; }
  cp -r "$build/target/lib" "$build/target/registry-rig-1-runner.jar" "$app/"
  rm -rf "$build"
  touch "$app/.complete"
}

rigtool() {
  if [ -z "${rigtool_bin:-}" ]; then
    mkdir -p "$cache/bin"
    rigtool_bin=$cache/bin/rigtool.$$
    local try
    for try in 1 2 3; do
      if (cd "$here/.." && go build -o "$rigtool_bin" ./scripts/rigtool) >&2; then break; fi
      [ "$try" = 3 ] && die "building scripts/rigtool failed"
      sleep 1
    done
    trap 'rm -f "$rigtool_bin"' EXIT
  fi
  "$rigtool_bin" "$@"
}

start() {
  [ $# -eq 0 ] || die "start takes no arguments"
  fetch
  local dir port
  dir=$(mktemp -d "${TMPDIR:-/tmp}/streamsql-registry.XXXXXX")
  port=$(rigtool freeport 1)
  # setsid: the registry must not receive the terminal's signals meant for a
  # test run. C2 compilation is left out: it costs start-up time on 2 cores
  # and the tests send few requests.
  setsid java -Xms64m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
    -jar "$app/registry-rig-1-runner.jar" >"$dir/registry.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  local url=http://127.0.0.1:$port/apis/ccompat/v7
  if ! rigtool waithttp "$url/subjects" 180s; then
    tail -n 30 "$dir/registry.log" >&2 || true
    stop "$dir"
    die "the registry did not start; its log is above"
  fi
  echo "export STREAMSQL_SCHEMA_REGISTRY_URL=$url"
  echo "export STREAMSQL_SCHEMA_REGISTRY_DIR=$dir"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: registry.sh stop DIR"
  [ -d "$dir" ] || return 0
  case $(basename "$dir") in streamsql-registry.*) ;; *) die "refusing to remove $dir: not a registry directory" ;; esac
  if [ -f "$dir/pid" ]; then
    local pid i
    pid=$(cat "$dir/pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -rf "$dir"
}

case ${1:-} in
  fetch) fetch ;;
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) die "usage: registry.sh fetch | start | stop DIR" ;;
esac
