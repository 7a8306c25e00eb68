#!/usr/bin/env bash
# Runs real Apache Kafka brokers (KRaft, one combined broker+controller each)
# for streamsql's tests, using only Java 17, Maven and Go.
#
#   scripts/kafka.sh fetch
#       Downloads the broker's jars from Maven Central (scripts/kafka-rig/pom.xml)
#       into the cache, once. Cache: $STREAMSQL_CACHE (default ~/.cache/streamsql).
#   scripts/kafka.sh start [--tv1] [--prop key=value]...
#       Formats KRaft storage in a new temporary directory, starts a broker on free
#       ports of 127.0.0.1, waits until it answers a metadata request, and prints
#           export STREAMSQL_KAFKA_BOOTSTRAP=127.0.0.1:PORT
#           export STREAMSQL_KAFKA_DIR=/tmp/streamsql-kafka.XXXX
#       so that `eval "$(scripts/kafka.sh start)"` exports both. --tv1 formats the
#       cluster with transaction.version=1 (how Kafka 3.x and not-yet-upgraded 4.x
#       clusters behave); --prop adds a server property (e.g.
#       transaction.max.timeout.ms=5000). Several brokers can run at once.
#   scripts/kafka.sh start --security DIR [--acl] [other start options]
#       Adds three listeners beside PLAINTEXT, using files a test wrote into DIR:
#         DIR/server.p12     the broker's key and certificate chain (PKCS12),
#                            its password in DIR/server.pass
#         DIR/ca.pem         the CA(s) whose client certificates the broker
#                            trusts (PEM)
#         DIR/scram-users    optional; one StorageTool --add-scram argument a
#                            line, e.g. SCRAM-SHA-512=[name=alice,password=alice-secret]
#         DIR/plain-users    optional; one name=password a line, for PLAIN
#       and prints, besides the two lines above,
#           export STREAMSQL_KAFKA_SASL_SSL_BOOTSTRAP=127.0.0.1:PORT        SCRAM-SHA-256/512
#           export STREAMSQL_KAFKA_SASL_PLAINTEXT_BOOTSTRAP=127.0.0.1:PORT  PLAIN, OAUTHBEARER (unsecured tokens)
#           export STREAMSQL_KAFKA_SSL_BOOTSTRAP=127.0.0.1:PORT             TLS, client certificate required
#       The SSL listener's principal is the client certificate's CN. --acl
#       enables the standard authorizer with no ACLs; the PLAINTEXT listener's
#       principal (User:ANONYMOUS, also the broker's own) is a super user, so
#       tests administer topics and ACLs through it.
#   scripts/kafka.sh stop DIR
#       Stops the broker started in DIR (that PID only) and removes DIR.
#   scripts/kafka.sh kill DIR
#       SIGKILLs the broker started in DIR (that PID only), as a crash would, and
#       waits until it is gone; DIR (data, configuration) stays for restart.
#   scripts/kafka.sh restart DIR
#       Starts the broker of DIR again (after kill) on the same ports with the same
#       data, waits until it answers, and prints the same two export lines as start.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rig=$here/kafka-rig
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$rig/pom.xml")
cache=${STREAMSQL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streamsql}
libs=$cache/kafka-$version/libs

die() { echo "kafka.sh: $*" >&2; exit 1; }

fetch() {
  if [ -f "$libs/.complete" ]; then return 0; fi
  command -v mvn >/dev/null || die "Maven (mvn) is needed to fetch the broker; install it (apt-get install maven)"
  command -v java >/dev/null || die "Java 17 is needed to run the broker; install it (apt-get install openjdk-17-jre-headless)"
  echo "kafka.sh: fetching Apache Kafka $version from Maven Central into $libs" >&2
  rm -rf "$libs"
  mkdir -p "$libs"
  local build
  build=$(mktemp -d)
  # The POM has no sources; build in a temporary copy so the work tree stays clean.
  cp "$rig/pom.xml" "$build/"
  (cd "$build" && mvn -q -B package -Dlibs.dir="$libs") >&2 || { rm -rf "$build"; die "mvn failed to fetch the broker"; }
  rm -rf "$build"
  touch "$libs/.complete"
}

rigtool() {
  # Built from this repository once per call of this script; go's build
  # cache makes it fast. Several scripts may build at once (parallel test
  # brokers), so each builds to its own file, and a failed build (go's
  # cache can trip over a concurrent build of the same package) is retried.
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
  local tv1=0 props=() secdir="" acl=0
  while [ $# -gt 0 ]; do
    case $1 in
      --tv1) tv1=1; shift ;;
      --security) [ $# -ge 2 ] || die "--security needs a directory"; secdir=$(cd "$2" && pwd) || die "--security: no directory $2"; shift 2 ;;
      --acl) acl=1; shift ;;
      --prop) [ $# -ge 2 ] || die "--prop needs key=value"; props+=("$2"); shift 2 ;;
      *) die "start: unknown argument $1" ;;
    esac
  done
  fetch
  local dir ports port cport
  dir=$(mktemp -d "${TMPDIR:-/tmp}/streamsql-kafka.XXXXXX")
  mapfile -t ports < <(rigtool freeport 5)
  port=${ports[0]} cport=${ports[1]}
  local listeners="PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport"
  local advertised="PLAINTEXT://127.0.0.1:$port"
  local protomap="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
  if [ -n "$secdir" ]; then
    [ -f "$secdir/server.p12" ] && [ -f "$secdir/server.pass" ] && [ -f "$secdir/ca.pem" ] ||
      { rm -rf "$dir"; die "--security $secdir: want server.p12, server.pass and ca.pem there"; }
    listeners+=",SASL_SSL://127.0.0.1:${ports[2]},SASL_PLAINTEXT://127.0.0.1:${ports[3]},SSL://127.0.0.1:${ports[4]}"
    advertised+=",SASL_SSL://127.0.0.1:${ports[2]},SASL_PLAINTEXT://127.0.0.1:${ports[3]},SSL://127.0.0.1:${ports[4]}"
    protomap+=",SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL"
  fi
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=$listeners
advertised.listeners=$advertised
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protomap
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  local scram=()
  if [ -n "$secdir" ]; then
    local jaas_users="" line
    if [ -f "$secdir/plain-users" ]; then
      while IFS= read -r line; do
        [ -n "$line" ] || continue
        jaas_users+=" user_${line%%=*}=\"${line#*=}\""
      done <"$secdir/plain-users"
    fi
    if [ -f "$secdir/scram-users" ]; then
      while IFS= read -r line; do [ -n "$line" ] && scram+=(--add-scram "$line"); done <"$secdir/scram-users"
    fi
    cat >>"$dir/server.properties" <<PROPS
ssl.keystore.type=PKCS12
ssl.keystore.location=$secdir/server.p12
ssl.keystore.password=$(cat "$secdir/server.pass")
ssl.truststore.type=PEM
ssl.truststore.location=$secdir/ca.pem
listener.name.ssl.ssl.client.auth=required
ssl.principal.mapping.rules=RULE:^CN=([^,]+).*\$/\$1/,DEFAULT
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN,OAUTHBEARER
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required$jaas_users;
listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker" unsecuredValidatorAllowableClockSkewMs="5000";
PROPS
  fi
  if [ "$acl" = 1 ]; then
    cat >>"$dir/server.properties" <<PROPS
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:ANONYMOUS
allow.everyone.if.no.acl.found=false
PROPS
  fi
  local p
  for p in "${props[@]}"; do echo "$p" >>"$dir/server.properties"; done

  local cp="$libs/*" cid features=()
  [ "$tv1" = 1 ] && features=(--feature transaction.version=1)
  features+=("${scram[@]}")
  cid=$(java -cp "$cp" kafka.tools.StorageTool random-uuid)
  java -cp "$cp" -Dlog4j2.configurationFile="file:$rig/log4j2.properties" \
    kafka.tools.StorageTool format -t "$cid" -c "$dir/server.properties" "${features[@]}" \
    >"$dir/format.log" 2>&1 || { cat "$dir/format.log" >&2; rm -rf "$dir"; die "formatting KRaft storage failed"; }

  launch "$dir" "$port" || { stop "$dir"; die "the broker did not start; its log is above"; }
  echo "export STREAMSQL_KAFKA_BOOTSTRAP=127.0.0.1:$port"
  echo "export STREAMSQL_KAFKA_DIR=$dir"
  if [ -n "$secdir" ]; then
    # All listeners open together, once the PLAINTEXT one answers.
    echo "export STREAMSQL_KAFKA_SASL_SSL_BOOTSTRAP=127.0.0.1:${ports[2]}"
    echo "export STREAMSQL_KAFKA_SASL_PLAINTEXT_BOOTSTRAP=127.0.0.1:${ports[3]}"
    echo "export STREAMSQL_KAFKA_SSL_BOOTSTRAP=127.0.0.1:${ports[4]}"
  fi
}

# launch DIR PORT runs the broker configured in DIR (its log appended to
# DIR/broker.log, its PID in DIR/pid) and waits until PORT answers; on
# failure it prints the log's tail and returns 1.
launch() {
  local dir=$1 port=$2
  # setsid: the broker must not receive the terminal's signals meant for a test run.
  setsid java -Xms128m -Xmx512m -XX:+UseSerialGC \
    -Dlog4j2.configurationFile="file:$rig/log4j2.properties" \
    -cp "$libs/*" kafka.Kafka "$dir/server.properties" >>"$dir/broker.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  if ! rigtool wait "127.0.0.1:$port" 90s; then
    tail -n 30 "$dir/broker.log" >&2 || true
    return 1
  fi
}

# brokerdir checks that DIR is a broker directory of start.
brokerdir() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: kafka.sh $2 DIR"
  [ -d "$dir" ] || die "$2: no directory $dir"
  case $(basename "$dir") in streamsql-kafka.*) ;; *) die "$2: $dir is not a broker directory" ;; esac
  [ -f "$dir/server.properties" ] || die "$2: $dir has no server.properties"
}

crash() {
  local dir=${1:-}
  brokerdir "$dir" kill
  [ -f "$dir/pid" ] || return 0
  local pid i
  pid=$(cat "$dir/pid")
  kill -9 "$pid" 2>/dev/null || true
  for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  die "kill: broker $pid still running"
}

restart() {
  local dir=${1:-}
  brokerdir "$dir" restart
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
    die "restart: the broker of $dir is running (PID $(cat "$dir/pid")); kill it first"
  fi
  local port
  port=$(sed -n 's|^advertised.listeners=PLAINTEXT://127.0.0.1:\([0-9]*\).*|\1|p' "$dir/server.properties")
  [ -n "$port" ] || die "restart: no PLAINTEXT port in $dir/server.properties"
  launch "$dir" "$port" || die "the broker did not restart; its log is above"
  echo "export STREAMSQL_KAFKA_BOOTSTRAP=127.0.0.1:$port"
  echo "export STREAMSQL_KAFKA_DIR=$dir"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: kafka.sh stop DIR"
  [ -d "$dir" ] || return 0
  case $(basename "$dir") in streamsql-kafka.*) ;; *) die "refusing to remove $dir: not a broker directory" ;; esac
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
  kill) shift; crash "$@" ;;
  restart) shift; restart "$@" ;;
  *) die "usage: kafka.sh fetch | start [--tv1] [--security DIR [--acl]] [--prop k=v]... | stop DIR | kill DIR | restart DIR" ;;
esac
