#!/usr/bin/env bash
# Runs a throwaway PostgreSQL server (Debian's `postgresql` package) for
# streamsql's jdbc tests, on a free port of 127.0.0.1, in a new temporary
# directory. The server never runs as root: when this script runs as root,
# initdb and postgres run as the `postgres` user the package creates.
#
#   scripts/pg.sh start [-c name=value]...
#       Creates a cluster (user streamsql, password streamsql-test, password
#       authentication; max_prepared_transactions=64 so that exactly-once
#       sinks can prepare transactions; fsync off: test data only), starts
#       it, waits until it accepts connections and prints
#           export STREAMSQL_PG_URL=jdbc:postgresql://127.0.0.1:PORT/postgres
#           export STREAMSQL_PG_USER=streamsql
#           export STREAMSQL_PG_PASSWORD=streamsql-test
#           export STREAMSQL_PG_DIR=/tmp/streamsql-pg.XXXX
#       so that `eval "$(scripts/pg.sh start)"` exports them. Each -c sets a
#       server setting after the defaults above (a test of a server without
#       prepared transactions uses -c max_prepared_transactions=0).
#   scripts/pg.sh stop DIR
#       Stops the server started in DIR (fast shutdown) and removes DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "pg.sh: $*" >&2; exit 1; }

# bindir finds initdb, pg_ctl and postgres of the newest installed version.
bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then dirname "$(command -v pg_ctl)"; return 0; fi
  die "PostgreSQL is not installed (apt-get install postgresql)"
}

# as runs a command as the server's user: postgres when we are root.
as() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

freeport() {
  (cd "$here/.." && go run ./scripts/rigtool freeport 1)
}

start() {
  local bin dir port extra=""
  while [ $# -gt 0 ]; do
    case $1 in
      -c) [ $# -ge 2 ] || die "-c needs name=value"; extra+=" -c $2"; shift 2 ;;
      *) die "start: unknown argument $1" ;;
    esac
  done
  bin=$(bindir)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/streamsql-pg.XXXXXX")
  chmod 755 "$dir"
  echo streamsql-test >"$dir/pwfile"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; fi
  as "$bin/initdb" -D "$dir/data" -U streamsql --pwfile="$dir/pwfile" --auth=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; rm -rf "$dir"; die "initdb failed"; }
  port=$(freeport) || { rm -rf "$dir"; die "no free port"; }
  local opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_prepared_transactions=64"
  opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB -c max_connections=200$extra"
  # setsid: the server must not receive the terminal's signals meant for a test run.
  if ! as setsid "$bin/pg_ctl" start -w -t 60 -D "$dir/data" -l "$dir/server.log" -o "$opts" >"$dir/pg_ctl.log" 2>&1 </dev/null; then
    tail -n 30 "$dir/server.log" >&2 || true
    stop "$dir"
    die "the server did not start; its log is above"
  fi
  echo "export STREAMSQL_PG_URL=jdbc:postgresql://127.0.0.1:$port/postgres"
  echo "export STREAMSQL_PG_USER=streamsql"
  echo "export STREAMSQL_PG_PASSWORD=streamsql-test"
  echo "export STREAMSQL_PG_DIR=$dir"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: pg.sh stop DIR"
  [ -d "$dir" ] || return 0
  case $(basename "$dir") in streamsql-pg.*) ;; *) die "refusing to remove $dir: not a server directory of pg.sh" ;; esac
  if [ -f "$dir/data/postmaster.pid" ]; then
    as "$(bindir)/pg_ctl" stop -D "$dir/data" -m immediate -w -t 30 >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case ${1:-} in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) die "usage: pg.sh start [-c name=value]... | stop DIR" ;;
esac
