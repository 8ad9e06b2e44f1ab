#!/usr/bin/env bash
# Index, bitmap and TID fetches of single rows, heap against column tables'
# main rows, counted exactly by valgrind's callgrind (bench/lib/callgrind.sh;
# the machine is shared: instruction counts, not timings):
#   bench/colfetch/callgrind.sh        (PGVER=15, ROWS=500000, KEYS=20000)
# A table t of ROWS x 10 int4 (W1 Narrow-U; c1 = 1..ROWS, unique, the
# others random) loaded by one INSERT ... SELECT (a column table's rows go
# into main blocks but for the first thousand: the setup prints
# quickstep.column_stats into $dir/AM-stats.txt), a btree on c1, and a heap
# table k of KEYS random rows of t (their c1 and ctid, random order).  A
# single-user backend under callgrind warms the cache (pg_prewarm), then runs
# one of the nested loops over k, with hash and merge joins and sequential
# scans of t off, so that each of the KEYS rows is one fetch:
#     idx_c2    SELECT sum(t.c2) FROM k JOIN t ON t.c1 = k.key    (index scan)
#     idx_all   the same, summing c1 .. c10                         (index scan)
#     bitmap    idx_c2 by a parameterized bitmap heap scan          (indexscan off)
#     tid       SELECT sum(t.c2) FROM k JOIN t ON t.ctid = k.tid  (TID scan)
# The same run without the query is subtracted and the difference divided by
# KEYS: instructions per fetch (the nested loop, the index probe and the
# sum included: compare heap's and the column table's figures).  For the
# column table the inclusive instructions per fetch of col_fetch_main (the
# whole fetch of a main row), qs_colreadcache_get (the per-scan block cache),
# qs_coldelmap_header (the delete-map header) and the row's store and decode
# (qs_colscan_store_row; for a row stored with its attributes decoded when
# read, qs_colscan_store_row_lazy plus lazy_getsomeattrs) are given too.  Each run's EXPLAIN is in $dir/AM-n.out.  Appends to
# bench/results/colfetch_callgrind.csv.  A column table's bitmap fetch opens
# its block again on every rescan (millions of instructions a fetch): run it
# with KEYS=200 QUERIES=bitmap, at 20,000 keys callgrind takes hours.
# Environment: PGVER, PG15_BIN/PG18_BIN (scripts/devpg.sh), CFCG_PORT
# (56260), CFCG_DIR (/tmp/qs-cfcg), ROWS, KEYS, AMS, QUERIES, CFCG_NOINIT
# (reuse the data directories of the last run, no build).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
port=${CFCG_PORT:-56260}
dir=${CFCG_DIR:-/tmp/qs-cfcg}
rows=${ROWS:-500000}
keys=${KEYS:-20000}
ams=${AMS:-heap quickstep_column}
queries=${QUERIES:-idx_c2 idx_all bitmap tid}
bindir=$(pg_bin "$ver")

. bench/lib/callgrind.sh
cg_setup()
{
	local cols vals
	cols=$(python3 -c 'print(", ".join("c%d int4" % i for i in range(1, 11)))')
	vals=$(python3 -c 'print(", ".join(["g"] + ["1 + (random() * 99999999)::int4"] * 9))')
	"$bindir/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "
		CREATE TABLE t ($cols) USING $1;
		SELECT setseed(0.1);
		INSERT INTO t SELECT $vals FROM generate_series(1, $rows) g;
		CREATE INDEX t_c1 ON t (c1);
		SELECT setseed(0.2);
		CREATE TABLE k USING heap AS
		  SELECT c1 AS key, ctid AS tid FROM t ORDER BY random() LIMIT $keys;" \
		-c "VACUUM ANALYZE t" -c "VACUUM ANALYZE k" >/dev/null
	"$bindir/psql" -X -h /tmp -p "$port" -U postgres -d postgres -c "
		SELECT * FROM quickstep.column_stats WHERE relid = 't'::regclass" \
		>"$dir/$1-stats.txt" 2>&1 || true
}

query()
{
	case $1 in
	idx_c2 | bitmap) echo "SELECT sum(t.c2) FROM k JOIN t ON t.c1 = k.key" ;;
	idx_all) echo "SELECT sum(t.c1), sum(t.c2), sum(t.c3), sum(t.c4), sum(t.c5), sum(t.c6), sum(t.c7), sum(t.c8), sum(t.c9), sum(t.c10) FROM k JOIN t ON t.c1 = k.key" ;;
	tid) echo "SELECT sum(t.c2) FROM k JOIN t ON t.ctid = k.tid" ;;
	esac
}

[ -n "${CFCG_NOINIT:-}" ] || rm -rf "$dir"
mkdir -p "$dir"
NOINIT=${CFCG_NOINIT:-} cg_init_all
txns=$keys
pieces="col_fetch_main qs_colreadcache_get qs_coldelmap_header"
mkdir -p bench/results
out=bench/results/colfetch_callgrind.csv
[ -f "$out" ] || echo "pg,rows,keys,query,am,commit,ir_per_fetch,fetch_main,readcache_get,delmap_header,store_row" >"$out"
commit=$(git rev-parse --short HEAD)
for qn in $queries; do
	q=$(query "$qn")
	idx=on
	[ "$qn" = bitmap ] && idx=off
	printf '%s\n' "SET enable_hashjoin = off" "SET enable_mergejoin = off" \
		"SET enable_seqscan = off" "SET enable_indexscan = $idx" \
		"SET enable_material = off" "SELECT pg_prewarm('t')" \
		"SELECT pg_prewarm('t_c1')" "SELECT pg_prewarm('k')" \
		"EXPLAIN $q" >"$dir/txn_0.sql"
	{ cat "$dir/txn_0.sql"; echo "$q"; } >"$dir/txn_n.sql"
	for am in $ams; do
		per=$(cg_measure "$am")
		cp "$dir/$am-n.out" "$dir/$am-$qn.out"
		row="$ver,$rows,$keys,$qn,$am,$commit,$per"
		for fn in $pieces; do
			n=$(cg_incl "$dir/$am-n.cg" "$fn")
			z=$(cg_incl "$dir/$am-0.cg" "$fn")
			row="$row,$(python3 -c "print('%.0f' % (($n - $z) / $keys))")"
		done
		# the store: eager, or lazy (store plus the decode the query asked for)
		n=0
		z=0
		for fn in qs_colscan_store_row_lazy lazy_getsomeattrs; do
			n=$((n + $(cg_incl "$dir/$am-n.cg" "$fn")))
			z=$((z + $(cg_incl "$dir/$am-0.cg" "$fn")))
		done
		if [ "$n" = 0 ]; then
			n=$(cg_incl "$dir/$am-n.cg" qs_colscan_store_row)
			z=$(cg_incl "$dir/$am-0.cg" qs_colscan_store_row)
		fi
		row="$row,$(python3 -c "print('%.0f' % (($n - $z) / $keys))")"
		echo "$row" | tee -a "$out"
	done
done
