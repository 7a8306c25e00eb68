#!/usr/bin/env bash
# Runs a real S3-compatible object store for streamsql's s3:// tests:
# SeaweedFS (`weed server` with its S3 gateway; Apache-2.0), built from the
# Go module proxy by the module in scripts/s3-rig, which pins its version.
# Everything listens on free ports of 127.0.0.1 only; telemetry is off.
#
#   scripts/s3.sh fetch
#       Builds weed into the cache, once (a few minutes on 2 cores; ~230 MB).
#       Cache: $STREAMSQL_CACHE (default ~/.cache/streamsql).
#   scripts/s3.sh start
#       Starts a server in a new temporary directory, with one identity
#       (static access key and secret key, all rights), waits until its S3
#       API answers, and prints
#           export STREAMSQL_S3_ENDPOINT=http://127.0.0.1:PORT
#           export STREAMSQL_S3_ACCESS_KEY=...
#           export STREAMSQL_S3_SECRET_KEY=...
#           export STREAMSQL_S3_DIR=/tmp/streamsql-s3.XXXX
#       so that `eval "$(scripts/s3.sh start)"` exports them.
#   scripts/s3.sh kill DIR
#       SIGKILLs the server started in DIR, keeping its data and ports
#       (tests of an object store that dies).
#   scripts/s3.sh restart DIR
#       Starts the server of DIR again after a kill: same ports, same data.
#   scripts/s3.sh stop DIR
#       Stops the server started in DIR (that PID only) and removes DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rig=$here/s3-rig
cache=${STREAMSQL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streamsql}
# The cache key covers the rig's module files, so a new version is rebuilt.
key=$(cat "$rig/go.mod" "$rig/go.sum" | sha256sum | cut -c1-12)
bin=$cache/seaweedfs-$key/weed

die() { echo "s3.sh: $*" >&2; exit 1; }

fetch() {
  if [ -x "$bin" ]; then return 0; fi
  command -v go >/dev/null || die "Go is needed to build the S3 server (weed)"
  mkdir -p "$cache"
  # One build at a time (a test may start a server while the script does).
  exec 9>"$cache/seaweedfs.lock"
  flock 9
  if [ ! -x "$bin" ]; then
    echo "s3.sh: building SeaweedFS (weed) from the Go module proxy into $bin" >&2
    mkdir -p "$(dirname "$bin")"
    (cd "$rig" && go build -trimpath -o "$bin.tmp.$$" github.com/seaweedfs/seaweedfs/weed) >&2 ||
      { rm -f "$bin.tmp.$$"; die "building weed failed"; }
    mv "$bin.tmp.$$" "$bin"
  fi
  exec 9>&-
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

# run starts the server of $dir (its ports in $dir/ports) and waits for it.
run() {
  local dir=$1 p
  p=($(cat "$dir/ports"))
  # setsid: the server must not receive the terminal's signals meant for a
  # test run. The unix sockets go into $dir (the grpc ones weed names
  # after the port under /tmp; stop removes them).
  setsid "$bin" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$dir/data" \
    -master.port="${p[0]}" -master.port.grpc="${p[1]}" -master.telemetry=false -master.volumeSizeLimitMB=64 -master.electionTimeout=1s \
    -volume.port="${p[2]}" -volume.port.grpc="${p[3]}" -volume.max=0 -volume.preStopSeconds=0 -volume.minFreeSpace=512MiB \
    -filer -filer.port="${p[4]}" -filer.port.grpc="${p[5]}" -filer.localSocket="$dir/filer.sock" \
    -s3 -s3.port="${p[6]}" -s3.port.grpc="${p[7]}" -s3.localSocket="$dir/s3.sock" \
    -s3.port.iceberg=0 -s3.port.lance=0 -s3.config="$dir/s3.json" \
    >>"$dir/weed.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  if ! rigtool waithttp "http://127.0.0.1:${p[6]}/healthz" 60s; then
    tail -n 30 "$dir/weed.log" >&2 || true
    return 1
  fi
}

start() {
  [ $# -eq 0 ] || die "start takes no arguments"
  fetch
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/streamsql-s3.XXXXXX")
  mkdir "$dir/data"
  rigtool freeport 8 | tr '\n' ' ' >"$dir/ports"
  # Test credentials only; the secret is random per server.
  local access=streamsql-test secret
  secret=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  cat >"$dir/s3.json" <<EOF
{"identities": [{"name": "streamsql", "credentials": [{"accessKey": "$access", "secretKey": "$secret"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
EOF
  if ! run "$dir"; then
    stop "$dir"
    die "the S3 server did not start; its log is above"
  fi
  echo "export STREAMSQL_S3_ENDPOINT=http://127.0.0.1:$(cut -d' ' -f7 "$dir/ports")"
  echo "export STREAMSQL_S3_ACCESS_KEY=$access"
  echo "export STREAMSQL_S3_SECRET_KEY=$secret"
  echo "export STREAMSQL_S3_DIR=$dir"
}

checkdir() {
  [ -n "$1" ] || die "usage: s3.sh $2 DIR"
  case $(basename "$1") in streamsql-s3.*) ;; *) die "refusing $1: not a server directory of s3.sh" ;; esac
}

# killpid stops the server's process: a signal, then SIGKILL after 10 s.
killpid() {
  local dir=$1 sig=$2 pid i
  [ -f "$dir/pid" ] || return 0
  pid=$(cat "$dir/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "-$sig" "$pid" 2>/dev/null || true
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid"
}

stop() {
  local dir=${1:-}
  checkdir "$dir" stop
  [ -d "$dir" ] || return 0
  killpid "$dir" TERM
  local p
  for p in $(cat "$dir/ports" 2>/dev/null); do rm -f /tmp/seaweedfs-*-"$p".sock; done
  rm -rf "$dir"
}

case ${1:-} in
  fetch) fetch ;;
  start) shift; start "$@" ;;
  kill) checkdir "${2:-}" kill; killpid "$2" KILL ;;
  restart)
    checkdir "${2:-}" restart
    [ ! -f "$2/pid" ] || ! kill -0 "$(cat "$2/pid")" 2>/dev/null || die "the server of $2 is running"
    fetch
    run "$2" || die "the S3 server did not restart; its log is above" ;;
  stop) shift; stop "$@" ;;
  *) die "usage: s3.sh fetch | start | kill DIR | restart DIR | stop DIR" ;;
esac
