#!/usr/bin/env bash
# Runs Confluent's own JavaScript schema registry client against
# internal/testrig/srtest and streamsql's avro-confluent format, and rewrites
# formats/avroconfluent/testdata/confluent-client.json. Needs Node.js 20
# and npm with access to the npm registry. Run on demand, not in CI (the
# client brings ~280 packages, ~170 MB):
#
#   tools/confluent-client-check/run.sh
#
# then review and commit the golden file. CI's TestConfluentClientGolden
# replays it without Node.js.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$here" && npm ci --no-audit --no-fund --ignore-scripts)
cd "$root"
go test -count=1 -run TestConfluentClientGolden ./formats/avroconfluent/ -write-confluent-client
echo "wrote $root/formats/avroconfluent/testdata/confluent-client.json"
