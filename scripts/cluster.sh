#!/usr/bin/env bash
# Create, start and stop a throwaway PostgreSQL cluster with quickstep_am
# preloaded.  The server runs as the `postgres` OS user (initdb and postgres
# refuse root); this script may be called as root or as postgres.
#
#   cluster.sh start VERSION DATADIR PORT   initdb if needed, then start
#   cluster.sh stop  VERSION DATADIR        fast shutdown (immediate if stuck)
#   cluster.sh status VERSION DATADIR
#
# Extra postgresql.conf lines may be passed in $QS_EXTRA_CONF.
# Sockets go to /tmp; the server listens on localhost:PORT too.
set -euo pipefail
. "$(dirname "$0")/env.sh"

cmd=${1:?usage: cluster.sh start|stop|status VERSION DATADIR [PORT]}
ver=${2:?version}
datadir=${3:?datadir}
bindir=$(pg_bin "$ver")

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

case "$cmd" in
start)
	port=${4:?port}
	parent=$(dirname "$datadir")
	mkdir -p "$parent"
	# As root: the postgres user writes the data directory and the logs
	# into the parent; it gets the parent only if it cannot write there
	# already -- a shared directory it can write, such as /tmp, is left as
	# it is (a data directory right under /tmp handed /tmp to postgres).
	if [ "$(id -u)" = 0 ] && ! as_pg test -w "$parent"; then
		chown postgres: "$parent"
	fi
	if ! as_pg test -x "$parent"; then
		echo "cluster: the postgres user cannot reach $parent; choose a data directory it can traverse" >&2
		exit 1
	fi
	if [ ! -f "$datadir/PG_VERSION" ]; then
		as_pg "$bindir/initdb" -D "$datadir" -A trust -U postgres -E UTF8 --no-locale -N >"$parent/initdb.log" 2>&1 ||
			{ cat "$parent/initdb.log" >&2; exit 1; }
		cat >>"$datadir/postgresql.conf" <<CONF

# added by quickstep_am scripts/cluster.sh
port = $port
listen_addresses = 'localhost'
unix_socket_directories = '/tmp'
shared_preload_libraries = 'quickstep_am'
max_prepared_transactions = 10
fsync = off
log_line_prefix = '%m [%p] %q%a '
${QS_EXTRA_CONF:-}
CONF
	fi
	as_pg "$bindir/pg_ctl" -D "$datadir" -l "$parent/server-$ver.log" -w -t 60 start >/dev/null ||
		{ tail -n 30 "$parent/server-$ver.log" >&2; exit 1; }
	;;
stop)
	if [ -f "$datadir/postmaster.pid" ]; then
		as_pg "$bindir/pg_ctl" -D "$datadir" -m fast -w -t 60 stop >/dev/null 2>&1 ||
			as_pg "$bindir/pg_ctl" -D "$datadir" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	;;
status)
	as_pg "$bindir/pg_ctl" -D "$datadir" status
	;;
*)
	echo "cluster.sh: unknown command $cmd" >&2
	exit 2
	;;
esac
