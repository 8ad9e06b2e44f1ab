#!/usr/bin/env bash
# W4: concurrent selective scans of a wide 'bookings' table (shared scans,
# src/shared/README.md).
#   bench/w4/run.sh [--quick]     (quick: 200k rows, full: 2M rows)
# A 48-column (~300-byte) table; each query selects one flight number on one
# date with random parameters (pgbench -f).  Per client count, transactions
# per second and mean latency of:
#   nsm_off    quickstep_nsm, QuickstepScan, quickstep.enable_shared_scan = off
#   nsm_on     the same with shared scans on
#   heap_btree heap with a btree index on (flight_no, flight_date): the baseline
#   nsm_on_base  with W4_BASE_LIB=path/to/quickstep_am.so: nsm_on with that
#              build of the library (copied over the installed one and the
#              server restarted around each such run), for before/after
#              figures from one cluster and one load
# Writes bench/results/w4.csv.
# Environment: PGVER (18), PG18_BIN/PG15_BIN, W4_PORT (56300), W4_DIR,
# W4_CLIENTS ("1 4 16 64"; up to 256), W4_SECONDS (5), W4_NOBUILD=1 to skip
# the build.  Then bench/w4/plot.py draws bench/results/w4.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

quick=0
[ "${1:-}" = "--quick" ] && quick=1
ver=${PGVER:-18}
port=${W4_PORT:-56300}
dir=${W4_DIR:-/tmp/qs-w4}
clients=${W4_CLIENTS:-1 4 16 64}
secs=${W4_SECONDS:-5}
if [ $quick = 1 ]; then rows=200000; else rows=2000000; fi
bindir=$(pg_bin "$ver")
psql_() { "$bindir/psql" -X -q -At -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

[ "${W4_NOBUILD:-0}" = 1 ] || bash scripts/build.sh "$ver" >/dev/null
bash scripts/cluster.sh stop "$ver" "$dir/data" 2>/dev/null || true
rm -rf "$dir"
QS_EXTRA_CONF="shared_buffers = 512MB
max_connections = 300
quickstep.max_shared_scans = 256
max_parallel_workers_per_gather = 0
quickstep.merge_workers = 0
jit = off" bash scripts/cluster.sh start "$ver" "$dir/data" "$port" >/dev/null
trap 'bash scripts/cluster.sh stop "$ver" "$dir/data" >/dev/null' EXIT

# 2 key columns + 46 payload columns (int4, int8, text of 8 chars in turn)
cols=""; vals=""
for i in $(seq 1 46); do
	case $((i % 3)) in
		0) cols="$cols, p$i int4"; vals="$vals, (g * $i) % 100000" ;;
		1) cols="$cols, p$i int8"; vals="$vals, g::int8 * $i" ;;
		2) cols="$cols, p$i text"; vals="$vals, substr(md5((g + $i)::text), 1, 8)" ;;
	esac
done
nflights=2000
ndays=100
psql_ <<SQL
CREATE EXTENSION quickstep_am;
CREATE TABLE bookings_nsm (flight_no int4, flight_date date $cols) USING quickstep_nsm;
INSERT INTO bookings_nsm
SELECT g % $nflights, date '2026-01-01' + (g / $nflights) % $ndays $vals
  FROM generate_series(0, $rows - 1) g;
CREATE TABLE bookings_heap (LIKE bookings_nsm) USING heap;
INSERT INTO bookings_heap SELECT * FROM bookings_nsm;
CREATE INDEX ON bookings_heap (flight_no, flight_date);
VACUUM ANALYZE bookings_nsm;
VACUUM ANALYZE bookings_heap;
SQL
echo "w4: $rows rows, nsm $(psql_ -c "SELECT pg_size_pretty(pg_relation_size('bookings_nsm'))"), heap $(psql_ -c "SELECT pg_size_pretty(pg_relation_size('bookings_heap'))")" >&2

for t in nsm heap; do
	cat >"$dir/q_$t.sql" <<SQL
\set f random(0, $((nflights - 1)))
\set d random(0, $((ndays - 1)))
SELECT flight_no, flight_date, p1, p2, p3 FROM bookings_$t WHERE flight_no = :f AND flight_date = date '2026-01-01' + :d;
SQL
done

libdir=$("$bindir/pg_config" --pkglibdir)
base_lib=${W4_BASE_LIB:-}
if [ -n "$base_lib" ]; then
	cp "$libdir/quickstep_am.so" "$dir/new.so"
	trap 'cp "$dir/new.so" "$libdir/quickstep_am.so"; bash scripts/cluster.sh stop "$ver" "$dir/data" >/dev/null' EXIT
fi
restart_with() {	# library
	bash scripts/cluster.sh stop "$ver" "$dir/data" >/dev/null
	cp "$1" "$libdir/quickstep_am.so"
	bash scripts/cluster.sh start "$ver" "$dir/data" "$port" >/dev/null
}

out=bench/results/w4.csv
mkdir -p bench/results
echo "config,clients,tps,latency_ms" >"$out"
run() {	# config table shared clients
	local tps lat
	res=$(PGOPTIONS="-c quickstep.enable_shared_scan=$3" "$bindir/pgbench" -n -h /tmp -p "$port" -U postgres \
		-f "$dir/q_$2.sql" -c "$4" -j "$(( $4 < 4 ? $4 : 4 ))" -T "$secs" postgres 2>&1)
	tps=$(echo "$res" | sed -nE 's/^tps = ([0-9.]+).*/\1/p')
	lat=$(echo "$res" | sed -nE 's/^latency average = ([0-9.]+) ms/\1/p')
	echo "$1,$4,$tps,$lat" | tee -a "$out"
}
# the plan each configuration runs
psql_ -c "SET quickstep.enable_shared_scan = on; EXPLAIN (COSTS OFF) SELECT * FROM bookings_nsm WHERE flight_no = 1 AND flight_date = date '2026-01-02'" >&2
for c in $clients; do
	run nsm_off nsm off "$c"
	run nsm_on nsm on "$c"
	run heap_btree heap off "$c"
	if [ -n "$base_lib" ]; then
		restart_with "$base_lib"
		run nsm_on_base nsm on "$c"
		restart_with "$dir/new.so"
	fi
done
python3 bench/w4/plot.py || echo "w4: no plot (matplotlib missing?)" >&2
