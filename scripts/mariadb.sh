#!/usr/bin/env bash
# Runs a throwaway MariaDB server (Debian's `mariadb-server` package) for
# streamsql's jdbc tests, on a free port of 127.0.0.1, with its own data
# directory in a new temporary directory. When this script runs as root the
# server runs as the `mysql` user the package creates.
#
#   scripts/mariadb.sh start
#       Creates the data directory, starts the server (binary log off,
#       InnoDB flushing relaxed: test data only), creates the database
#       streamsql and the user streamsql (password streamsql-test, all
#       privileges, XA RECOVER included), and prints
#           export STREAMSQL_MYSQL_URL=jdbc:mariadb://127.0.0.1:PORT/streamsql
#           export STREAMSQL_MYSQL_USER=streamsql
#           export STREAMSQL_MYSQL_PASSWORD=streamsql-test
#           export STREAMSQL_MYSQL_DIR=/tmp/streamsql-mariadb.XXXX
#       so that `eval "$(scripts/mariadb.sh start)"` exports them.
#   scripts/mariadb.sh stop DIR
#       Stops the server started in DIR and removes DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "mariadb.sh: $*" >&2; exit 1; }

server() {
  local b
  for b in mariadbd mysqld; do
    if command -v "$b" >/dev/null; then command -v "$b"; return 0; fi
    if [ -x "/usr/sbin/$b" ]; then echo "/usr/sbin/$b"; return 0; fi
  done
  die "MariaDB is not installed (apt-get install mariadb-server)"
}

client() {
  local b
  for b in mariadb mysql; do
    if command -v "$b" >/dev/null; then command -v "$b"; return 0; fi
  done
  die "the MariaDB client is not installed (apt-get install mariadb-client)"
}

userarg() {
  if [ "$(id -u)" = 0 ]; then echo "--user=mysql"; else echo "--user=$(id -un)"; fi
}

start() {
  local dir port bin cli
  bin=$(server)
  cli=$(client)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/streamsql-mariadb.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown mysql "$dir"; fi
  local install
  install=$(command -v mariadb-install-db || command -v mysql_install_db) || { rm -rf "$dir"; die "mariadb-install-db is missing"; }
  "$install" --no-defaults --datadir="$dir/data" "$(userarg)" --auth-root-authentication-method=normal \
    --skip-test-db >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log" >&2; rm -rf "$dir"; die "mariadb-install-db failed"; }
  port=$(cd "$here/.." && go run ./scripts/rigtool freeport 1) || { rm -rf "$dir"; die "no free port"; }
  # setsid: the server must not receive the terminal's signals meant for a test run.
  setsid "$bin" --no-defaults --datadir="$dir/data" "$(userarg)" --port="$port" --bind-address=127.0.0.1 \
    --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --log-error="$dir/server.log" \
    --skip-log-bin --innodb-buffer-pool-size=64M --innodb-log-file-size=48M \
    --innodb-flush-log-at-trx-commit=2 --innodb-doublewrite=0 --max-connections=200 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/launcher.pid"
  local i
  for i in $(seq 300); do
    if "$cli" --no-defaults --socket="$dir/mysqld.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then break; fi
    if ! kill -0 "$(cat "$dir/launcher.pid")" 2>/dev/null; then i=300; break; fi
    sleep 0.1
  done
  if [ "$i" = 300 ]; then
    tail -n 30 "$dir/server.log" >&2 || true
    stop "$dir"
    die "the server did not start; its log is above"
  fi
  "$cli" --no-defaults --socket="$dir/mysqld.sock" -uroot <<'SQL' || { stop "$dir"; die "creating the test user failed"; }
CREATE DATABASE streamsql;
CREATE USER 'streamsql'@'127.0.0.1' IDENTIFIED BY 'streamsql-test';
CREATE USER 'streamsql'@'localhost' IDENTIFIED BY 'streamsql-test';
GRANT ALL PRIVILEGES ON *.* TO 'streamsql'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'streamsql'@'localhost';
SQL
  echo "export STREAMSQL_MYSQL_URL=jdbc:mariadb://127.0.0.1:$port/streamsql"
  echo "export STREAMSQL_MYSQL_USER=streamsql"
  echo "export STREAMSQL_MYSQL_PASSWORD=streamsql-test"
  echo "export STREAMSQL_MYSQL_DIR=$dir"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: mariadb.sh stop DIR"
  [ -d "$dir" ] || return 0
  case $(basename "$dir") in streamsql-mariadb.*) ;; *) die "refusing to remove $dir: not a server directory of mariadb.sh" ;; esac
  local pid="" i
  if [ -f "$dir/mysqld.pid" ]; then pid=$(cat "$dir/mysqld.pid"); fi
  if [ -z "$pid" ] && [ -f "$dir/launcher.pid" ]; then pid=$(cat "$dir/launcher.pid"); fi
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

case ${1:-} in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) die "usage: mariadb.sh start | stop DIR" ;;
esac
