#!/usr/bin/env bash
# Aggregates over a column table vs heap (issue 13, paper 000 §4.7): the
# baseline aggregate pushdown is measured against.  count/sum/avg/min/max with
# and without GROUP BY on a low-cardinality column, over a quickstep_column
# table and the same rows in heap (parallel workers as PostgreSQL chooses).
# Each query: EXPLAIN (ANALYZE, TIMING OFF) Execution Time, one warm-up, then
# AGG_RUNS runs (default 3), all printed.
#
#   eval "$(bash scripts/devpg.sh NAME)"; bash scripts/build.sh 15
#   bash bench/agg/run.sh [ROWS] [PGVERSION]       # default 2000000 15
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
rows=${1:-2000000}
ver=${2:-15}
runs=${AGG_RUNS:-3}
port=$(( ${QS_PORT_BASE:-55400} + 40 + ver ))
dir=${QS_TEST_DIR:-/tmp/quickstep-bench}/aggbench/pg$ver
bash scripts/cluster.sh stop "$ver" "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
QS_EXTRA_CONF=$'shared_buffers = 1GB\nwork_mem = 64MB\njit = off\nautovacuum = off\nsynchronous_commit = off\nmax_wal_size = 8GB' \
	bash scripts/cluster.sh start "$ver" "$dir" "$port" >/dev/null
trap 'bash scripts/cluster.sh stop "$ver" "$dir" >/dev/null' EXIT
psql() { "$(pg_bin "$ver")/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
psql -c "CREATE EXTENSION quickstep_am"
for am in heap quickstep_column; do
	t=agg_${am#quickstep_}
	psql <<SQL
SET quickstep.column_delta_rows = 0;
CREATE TABLE $t (g int4, a int4, b int8, f float8, d date) USING $am;
SELECT setseed(0.5);
INSERT INTO $t SELECT (random() * 7)::int4, (random() * 1e6)::int4, (random() * 1e12)::int8,
	random() * 1000, date '2020-01-01' + (random() * 2000)::int
	FROM generate_series(1, $rows);
VACUUM ANALYZE $t;
SQL
done
queries=(
	"SELECT count(*) FROM %s"
	"SELECT sum(a), avg(a), min(a), max(a) FROM %s"
	"SELECT sum(b), avg(b), min(d), max(d), sum(f) FROM %s"
	"SELECT g, count(*), sum(a), avg(a), min(a), max(a) FROM %s GROUP BY g"
	"SELECT g, count(*), sum(a) FROM %s WHERE a < 500000 GROUP BY g"
)
echo "pg$ver rows=$rows runs=$runs"
for q in "${queries[@]}"; do
	for t in agg_heap agg_column; do
		sql=$(printf "$q" "$t")
		# workers as PostgreSQL chooses, then none (one core's cost)
		for w in default 0; do
			set=""
			[ "$w" = default ] || set="SET max_parallel_workers_per_gather = $w;"
			psql -c "$set EXPLAIN (ANALYZE, TIMING OFF) $sql" >/dev/null	# warm-up
			times=()
			for ((i = 0; i < runs; i++)); do
				times+=("$(psql -At -c "$set" -c "EXPLAIN (ANALYZE, TIMING OFF) $sql" | sed -n 's/^Execution Time: \(.*\) ms$/\1/p')")
			done
			shape=$(psql -At -c "$set" -c "EXPLAIN (COSTS OFF) $sql" | grep -v 'Aggregates Pushed' | grep -o -E '(Parallel )?(Seq Scan|Custom Scan \(QuickstepScan\)|Gather( Merge)?|(Finalize |Partial )?(Hash|Group)?Aggregate)' | tr '\n' '/')
			printf '%-10s w=%-7s %-72s ms: %s | %s\n' "$t" "$w" "$sql" "${times[*]}" "$shape"
		done
	done
done
