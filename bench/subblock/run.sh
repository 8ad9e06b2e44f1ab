#!/usr/bin/env bash
# Index sub-block probes against stripe scans (issue 13, paper 000 §4.4):
# two quickstep_column tables of the same ROWS rows sorted on id, one with
# quickstep.index_columns = 'g,k' (CSB+-tree sub-blocks), one without;
# 0.1 % and 1 % predicates on the unsorted columns g (text, 1000 values)
# and k (int, 100 values, dictionary forced), alone and before a float
# qual; 0.001 %, 0.1 % and 1 % predicates on a (int, 100,000 values spread
# over the blocks, FOR: the sub-block over value - min).  QUERIES="int"
# runs a's only, "dict" g's and k's only.  Serial (max_parallel_workers_per_gather = 0); per query and table
# one warm-up, then the median of 7 client-side \timing runs.
#
#   eval "$(bash scripts/devpg.sh NAME)"; bash scripts/build.sh 18
#   bash bench/subblock/run.sh [ROWS] [PGVERSION]       # default 2000000 18
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
rows=${1:-2000000}
ver=${2:-18}
port=$(( ${QS_PORT_BASE:-55400} + 50 + ver ))
dir=${QS_TEST_DIR:-/tmp/quickstep-bench}/subblock/pg$ver
bash scripts/cluster.sh stop "$ver" "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
bash scripts/cluster.sh start "$ver" "$dir" "$port" >/dev/null
trap 'bash scripts/cluster.sh stop "$ver" "$dir" >/dev/null' EXIT
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql() { as_pg "$(pg_bin "$ver")/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
psql <<SQL
CREATE EXTENSION quickstep_am;
CREATE TABLE ti (id int, g text COLLATE "C", k int, f float8, a int) USING quickstep_column
  WITH (quickstep.sort_key = 'id', quickstep.index_columns = 'g,k,a', quickstep.encoding_k = 'dict',
        quickstep.encoding_a = 'for');
CREATE TABLE tn (id int, g text COLLATE "C", k int, f float8, a int) USING quickstep_column
  WITH (quickstep.sort_key = 'id', quickstep.encoding_k = 'dict', quickstep.encoding_a = 'for');
INSERT INTO ti SELECT i, 'g' || lpad(((i::int8 * 7919) % 1000)::text, 4, '0'),
  ((i::int8 * 104729) % 100)::int, (i % 1000) / 7.0, ((i::int8 * 15485863) % 100000)::int
  FROM generate_series(1, $rows) i;
INSERT INTO tn SELECT * FROM ti;
SELECT quickstep.seal('ti'), quickstep.seal('tn');
VACUUM ANALYZE ti;
VACUUM ANALYZE tn;
SELECT column_name, encoding, count(*) FROM quickstep.blocks('ti') WHERE column_name = 'a' GROUP BY 1, 2;
SQL
dictq=("g = 'g0123'" "g BETWEEN 'g0100' AND 'g0109'" "k = 17" "g = 'g0123' AND f < 50")
intq=("a = 12345" "a BETWEEN 1000 AND 1099" "a BETWEEN 1000 AND 1999" "a = 12345 AND f < 50")
case "${QUERIES:-all}" in
	int) queries=("${intq[@]}") ;;
	dict) queries=("${dictq[@]}") ;;
	*) queries=("${dictq[@]}" "${intq[@]}") ;;
esac
for q in "${queries[@]}"; do
	for t in tn ti; do
		for form in "count(*)" "sum(f)"; do
			ms=$({ echo "SET max_parallel_workers_per_gather = 0;"; echo '\timing on'
				   for i in 1 2 3 4 5 6 7 8; do echo "SELECT $form FROM $t WHERE $q;"; done; } |
				 psql 2>&1 | grep '^Time:' | tail -7 | awk '{print $2}' | sort -n | sed -n 4p)
			echo "$t | $form | $q | median $ms ms"
		done
	done
done
