#!/usr/bin/env bash
# Which scan the planner takes for W1's column table as the query reads 1 to
# 10 of its 10 columns, and the instructions a row each query runs:
#     SELECT c1..ck FROM t [WHERE $W] OFFSET 10000000      (k = 1..10)
# counted by valgrind's callgrind inside standard_ExecutorRun only (one
# single-user backend runs the ten queries, callgrind dumps after each
# executor run; parsing, planning and executor start-up are not counted),
# divided by ROWS.  Prints "k ir_per_row plan_node".
#   bench/w1/crossover.sh        after bench/w1/callgrind.sh with AMS holding
#                                quickstep_column: it reuses that run's data
#                                directory (a copy; the build installed then)
# PUSHDOWN=off gives the plain scan at every k; on (the default) the
# planner's choice.  src/scan/colcost.c's charges were fitted with it.
# Environment: PGVER (15), PG15_BIN/PG18_BIN (scripts/devpg.sh), W1CG_DIR
# (/tmp/qs-w1cg), ROWS (the rows that run loaded, 1000000), W (a WHERE
# clause; none), PUSHDOWN (on).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
dir=${W1CG_DIR:-/tmp/qs-w1cg}
rows=${ROWS:-1000000}
bindir=$(pg_bin "$ver")
init=$dir/init-quickstep_column/data
run=$dir/crossover

[ -d "$init" ] || { echo "no $init: run bench/w1/callgrind.sh first" >&2; exit 1; }
rm -rf "$run"
mkdir -p "$run"
cp -a "$init" "$run/data"
{
	echo "SET quickstep.enable_pushdown = ${PUSHDOWN:-on}"
	echo "SELECT pg_prewarm('t')"
	for k in $(seq 1 10); do
		q="SELECT $(seq -s, -f 'c%g' 1 "$k") FROM t ${W:+WHERE $W} OFFSET 10000000"
		echo "EXPLAIN $q"
		echo "$q"
	done
} >"$run/q.sql"
chown -R postgres: "$run"
# dump 1 is pg_prewarm's executor run, dumps 2..11 the queries'
runuser -u postgres -- valgrind --tool=callgrind --collect-atstart=no \
	--toggle-collect=standard_ExecutorRun --dump-after=standard_ExecutorRun \
	--callgrind-out-file="$run/cg" "$bindir/postgres" --single -D "$run/data" \
	postgres <"$run/q.sql" >"$run/out" 2>"$run/err"
python3 - "$run" "$rows" <<'EOF'
import re, sys
run, rows = sys.argv[1], int(sys.argv[2])
# each EXPLAIN's scan node: the line under Limit
nodes = re.findall(r'QUERY PLAN = "  ->  (.*?) on t  \(cost', open(run + '/out').read())
for k in range(1, 11):
    total = next(int(l.split()[1]) for l in open('%s/cg.%d' % (run, k + 1))
                 if l.startswith(('summary:', 'totals:')))
    print(k, round(total / rows, 1), nodes[k - 1] if k <= len(nodes) else '?')
EOF
rm -rf "$run/data"
