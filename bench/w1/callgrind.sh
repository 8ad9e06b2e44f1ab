#!/usr/bin/env bash
# W1 Narrow-U at 100 % selectivity, counted exactly by valgrind's callgrind
# (the machine is shared: instruction counts, not timings):
#   bench/w1/callgrind.sh            (PGVER=15, ROWS=1000000)
# A table t of ROWS x 10 int4 (W1's generator and seed) per access method
# of AMS (heap quickstep_column; a column table's rows go into main blocks
# but for the first thousand).  A single-user backend under callgrind
# warms the cache (pg_prewarm and one scan), then runs the plain
# sequential scan
#     SELECT count(c1), count(c10) FROM t     (quickstep.enable_pushdown off)
# once more; the same run without it is subtracted and the difference
# divided by ROWS: the instructions per row.  Prints "am ir_per_row".
# Q replaces the query and PUSHDOWN=on lets QuickstepScan take it (both
# runs print its EXPLAIN into $W1CG_DIR/AM-n.out, for the planner's cost):
#     Q='SELECT c1, c2, c3 FROM t WHERE c1 >= 1 OFFSET 10000000' PUSHDOWN=on
# is W1's 3-column query at 100 % without sending the rows to a client.
# Environment: PGVER, PG15_BIN/PG18_BIN (scripts/devpg.sh), W1CG_PORT
# (56230), W1CG_DIR (/tmp/qs-w1cg), ROWS, AMS, W1CG_NOINIT (reuse the
# data directories of the last run, no build), Q, PUSHDOWN (off).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
port=${W1CG_PORT:-56230}
dir=${W1CG_DIR:-/tmp/qs-w1cg}
rows=${ROWS:-1000000}
ams=${AMS:-heap quickstep_column}
bindir=$(pg_bin "$ver")

. bench/lib/callgrind.sh
cg_setup()
{
	local cols vals
	cols=$(python3 -c 'print(", ".join("c%d int4" % i for i in range(1, 11)))')
	vals=$(python3 -c 'print(", ".join("1 + (random() * 99999999)::int4" for i in range(1, 11)))')
	"$bindir/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "
		CREATE TABLE t ($cols) USING $1;
		SELECT setseed(0.1);
		INSERT INTO t SELECT $vals FROM generate_series(1, $rows);" -c "VACUUM ANALYZE t" >/dev/null
}

[ -n "${W1CG_NOINIT:-}" ] || rm -rf "$dir"
mkdir -p "$dir"
NOINIT=${W1CG_NOINIT:-} cg_init_all
q=${Q:-SELECT count(c1), count(c10) FROM t}
printf '%s\n' "SET quickstep.enable_pushdown = ${PUSHDOWN:-off}" "SELECT pg_prewarm('t')" \
	"EXPLAIN $q" "$q" >"$dir/txn_0.sql"
{ cat "$dir/txn_0.sql"; echo "$q"; } >"$dir/txn_n.sql"
txns=$rows
for am in $ams; do
	echo "$am $(cg_measure "$am")"
done
