#!/usr/bin/env bash
# make demo: on a fresh machine (as root) install what is missing, build and
# install quickstep_am, start a local server with it preloaded, load a small
# demo data set into every table access method the extension offers, run a
# few queries, and leave the server running for psql.
#
#   QS_DEMO_PG=15|18 (default 15)   QS_DEMO_PORT (default 54315)
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$QS_ROOT"

ver=${QS_DEMO_PG:-15}
port=${QS_DEMO_PORT:-54315}
bindir=$(pg_bin "$ver")

bash scripts/deps.sh
bash scripts/build.sh "$ver"

# The data directory lives inside the checkout when the postgres user can
# reach it; a checkout under a private home (e.g. /root, mode 700) cannot
# be, and then the demo server lives under /tmp.
base="$QS_ROOT/.demo"
mkdir -p "$base"
chmod 755 "$base"
if ! runuser -u postgres -- test -x "$base"; then
	base=/tmp/quickstep-demo
	echo "demo: the postgres user cannot enter $QS_ROOT; using $base instead"
fi
data="$base/pg$ver/data"

# Restart so that the server loads the library just installed.
bash scripts/cluster.sh stop "$ver" "$data"
bash scripts/cluster.sh start "$ver" "$data" "$port"

export PGHOST=/tmp PGPORT=$port PGUSER=postgres
# demo.sql's second session (the merge beside an open snapshot)
export QS_DEMO_PSQL="$bindir/psql"
psql() { "$bindir/psql" -X "$@"; }
# A fresh demo database each time, so that it has this build's extension.
psql -q -d postgres -c 'DROP DATABASE IF EXISTS quickstep_demo' -c 'CREATE DATABASE quickstep_demo'
psql -q -d quickstep_demo -v ON_ERROR_STOP=1 -f scripts/demo.sql

cat <<MSG

The demo server is running (PostgreSQL $ver, data in $data).
  connect:  $bindir/psql "postgresql://postgres@localhost:$port/quickstep_demo"
  stop:     bash scripts/cluster.sh stop $ver $data
MSG
