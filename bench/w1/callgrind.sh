#!/usr/bin/env bash
# W1 Narrow-U at 100 % selectivity, counted exactly by valgrind's callgrind
# (the machine is shared: instruction counts, not timings):
#   bench/w1/callgrind.sh            (PGVER=15, ROWS=1000000)
# One table of ROWS x 10 int4 (W1's generator and seed) per access method,
# heap and quickstep_column (loaded into main blocks).  A single-user
# backend under callgrind warms the cache (pg_prewarm), then runs the plain
# sequential scan
#     SELECT count(c1), count(c10) FROM t     (quickstep.enable_pushdown off)
# once with the query and, in a second run, without; the difference
# divided by ROWS is the instructions per row.  Prints "am ir_per_row".
# Environment: PGVER, PG15_BIN/PG18_BIN (scripts/devpg.sh), W1CG_PORT
# (56230), W1CG_DIR (/tmp/qs-w1cg), ROWS.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
port=${W1CG_PORT:-56230}
dir=${W1CG_DIR:-/tmp/qs-w1cg}
rows=${ROWS:-1000000}
bindir=$(pg_bin "$ver")
psql_() { "$bindir/psql" -X -q -At -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

if ! command -v valgrind >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi

[ -n "${NOBUILD:-}" ] || bash scripts/build.sh "$ver" >/dev/null
bash scripts/cluster.sh stop "$ver" "$dir/data" 2>/dev/null || true
rm -rf "$dir"
QS_EXTRA_CONF="shared_buffers = 256MB
max_parallel_workers_per_gather = 0
jit = off
autovacuum = off
quickstep.merge_workers = 0" bash scripts/cluster.sh start "$ver" "$dir/data" "$port"

cols=$(python3 -c 'print(", ".join("c%d int4" % i for i in range(1, 11)))')
vals=$(python3 -c 'print(", ".join("1 + (random() * 99999999)::int4" for i in range(1, 11)))')
psql_ <<SQL
CREATE EXTENSION quickstep_am;
CREATE EXTENSION pg_prewarm;
CREATE TABLE t_heap ($cols) USING heap;
SELECT setseed(0.1);
INSERT INTO t_heap SELECT $vals FROM generate_series(1, $rows);
CREATE TABLE t_col ($cols) USING quickstep_column;
INSERT INTO t_col SELECT * FROM t_heap;
VACUUM ANALYZE t_heap, t_col;
SQL
echo "column table: $(psql_ -c "SELECT delta_rows || ' delta rows, ' || main_rows || ' main rows' FROM quickstep.column_table_stats('t_col')" 2>/dev/null || echo '?')" >&2
bash scripts/cluster.sh stop "$ver" "$dir/data"
chown -R postgres: "$dir"

run_cg() {
	local tag=$1 tbl=$2 query=$3
	{
		echo "SET quickstep.enable_pushdown = off"
		echo "SELECT pg_prewarm('$tbl')"
		echo "SELECT count(c1), count(c10) FROM $tbl"
		[ -n "$query" ] && echo "SELECT count(c1), count(c10) FROM $tbl"
	} >"$dir/$tag.sql"
	rm -rf "$dir/run"
	cp -a "$dir/data" "$dir/run"
	chown -R postgres: "$dir"
	runuser -u postgres -- valgrind --tool=callgrind \
		--callgrind-out-file="$dir/$tag.cg" \
		"$bindir/postgres" --single -D "$dir/run" postgres \
		<"$dir/$tag.sql" >"$dir/$tag.out" 2>"$dir/$tag.err"
	grep -E '^summary:|^totals:' "$dir/$tag.cg" | head -1 | awk '{print $2}'
}

for am in heap col; do
	n=$(run_cg "$am-n" "t_$am" 1)
	z=$(run_cg "$am-0" "t_$am" "")
	python3 -c "print('$am', '%.1f' % (($n - $z) / $rows))"
done
rm -rf "$dir/run"
