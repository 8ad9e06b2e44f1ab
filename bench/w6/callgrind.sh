#!/usr/bin/env bash
# W6 (a): instructions per index probe, csbtree vs btree, counted exactly by
# valgrind's callgrind (no timing noise: the machine is shared).
#   bench/w6/callgrind.sh            (ROWS=1000000, PROBES=20000)
# Two identical tables of ROWS int4 keys, one with a btree index, one with
# a csbtree index.  A single-user backend under callgrind warms the cache
# (pg_prewarm of the table and its index), then runs the W6 probe query -- a
# nested-loop join of PROBES random keys against the table -- once with
# the PROBES-row probe table and, in a second callgrind run, with an empty
# one.  Per probe:
#   total_ir  (Ir of the run with PROBES probes - Ir of the run with 0) / PROBES:
#             everything a probe costs (executor, index, heap fetch)
#   am_ir     the index AM's own share: inclusive Ir of amrescan + amgettuple
#             (btrescan + btgettuple, csb_rescan + csb_gettuple), with
#             probes minus without, / PROBES (the warm-up scan cancels out)
# and the same for point queries, one statement per probe as pgbench -S
# runs them (a PL/pgSQL loop of PROBES SELECTs minus a loop of none):
#   query_ir, query_am_ir (the AM adding ambeginscan and amendscan)
# Writes bench/results/w6_callgrind.csv and .png.
# Environment: PGVER (18), PG18_BIN/PG15_BIN, W6_PORT (56210), W6_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-18}
port=${W6_PORT:-56210}
dir=${W6_DIR:-/tmp/qs-w6cg}
rows=${ROWS:-1000000}
probes=${PROBES:-20000}
bindir=$(pg_bin "$ver")
psql_() { "$bindir/psql" -X -q -At -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

if ! command -v valgrind >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi

bash scripts/build.sh "$ver" >/dev/null
bash scripts/cluster.sh stop "$ver" "$dir/data" 2>/dev/null || true
rm -rf "$dir"
QS_EXTRA_CONF="shared_buffers = 256MB
max_parallel_workers_per_gather = 0
jit = off
autovacuum = off" bash scripts/cluster.sh start "$ver" "$dir/data" "$port"

psql_ <<SQL
CREATE EXTENSION quickstep_am;
CREATE EXTENSION pg_prewarm;
CREATE TABLE w6b (k int4, pad int4);
INSERT INTO w6b SELECT (i::int8 * 7919 % $rows)::int4, i FROM generate_series(0, $rows - 1) i;
CREATE TABLE w6c AS SELECT * FROM w6b;
CREATE INDEX w6b_k ON w6b USING btree (k);
CREATE INDEX w6c_k ON w6c USING csbtree (k);
CREATE TABLE probes (k int4);
INSERT INTO probes SELECT (i::int8 * 104729 % $rows)::int4 FROM generate_series(1, $probes) i;
CREATE TABLE probes0 (k int4);
VACUUM ANALYZE w6b, w6c, probes, probes0;
SQL
bash scripts/cluster.sh stop "$ver" "$dir/data"
chown -R postgres: "$dir"

# one single-user session: settings, warm-up, one probe query
run_cg() {
	local tag=$1 tbl=$2 ptab=$3
	cat >"$dir/$tag.sql" <<SQL
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_bitmapscan = off
SET enable_seqscan = off
SET enable_material = off
SET enable_indexonlyscan = off
SELECT pg_prewarm('$tbl') + pg_prewarm('${tbl}_k')
SELECT count(*) FROM $ptab
SELECT count(t.pad) FROM $ptab p JOIN $tbl t ON t.k = p.k
SQL
	chown postgres: "$dir/$tag.sql"
	runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$dir/$tag.cg" \
		"$bindir/postgres" --single -D "$dir/data" -c shared_buffers=256MB postgres \
		<"$dir/$tag.sql" >"$dir/$tag.out" 2>"$dir/$tag.err"
}

# the plan the probe query gets, for the record
{
	for tbl in w6b w6c; do
		printf 'SET enable_hashjoin = off\nSET enable_mergejoin = off\nSET enable_bitmapscan = off\nSET enable_seqscan = off\nSET enable_material = off\nSET enable_indexonlyscan = off\nEXPLAIN (COSTS OFF) SELECT count(t.pad) FROM probes p JOIN %s t ON t.k = p.k\n' "$tbl" |
			runuser -u postgres -- "$bindir/postgres" --single -D "$dir/data" postgres 2>&1 | grep -E 'QUERY PLAN|= "' || true
	done
} >"$dir/plans.txt"
cat "$dir/plans.txt"

# point queries: one statement (executor start, index begin/rescan/end)
# per probe, as pgbench -S runs them, from a PL/pgSQL loop
run_q() {
	local tag=$1 tbl=$2 n=$3
	cat >"$dir/$tag.sql" <<SQL
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_indexonlyscan = off
SELECT pg_prewarm('$tbl') + pg_prewarm('${tbl}_k')
DO \$\$ DECLARE x int; BEGIN FOR i IN 1..$n LOOP SELECT pad INTO x FROM $tbl WHERE k = (i::int8 * 104729 % $rows)::int4; END LOOP; END \$\$
SQL
	chown postgres: "$dir/$tag.sql"
	runuser -u postgres -- valgrind --tool=callgrind --callgrind-out-file="$dir/$tag.cg" \
		"$bindir/postgres" --single -D "$dir/data" -c shared_buffers=256MB postgres \
		<"$dir/$tag.sql" >"$dir/$tag.out" 2>"$dir/$tag.err"
}

for tbl in w6b w6c; do
	run_cg "${tbl}_n" "$tbl" probes
	run_cg "${tbl}_0" "$tbl" probes0
	run_q "${tbl}_qn" "$tbl" "$probes"
	run_q "${tbl}_q0" "$tbl" 0
done

# totals and inclusive AM costs (cg_summ, cg_incl)
. bench/lib/callgrind.sh

mkdir -p bench/results
{
	echo "workload,pg,rows,probes,am,total_ir_per_probe,am_ir_per_probe,query_ir_per_probe,query_am_ir_per_probe"
	for am in btree csbtree; do
		if [ $am = btree ]; then
			tbl=w6b; fns="btrescan btgettuple"; qfns="btbeginscan btrescan btgettuple btendscan"
		else
			tbl=w6c; fns="csb_rescan csb_gettuple"; qfns="csb_beginscan csb_rescan csb_gettuple csb_endscan"
		fi
		n=$(cg_summ "$dir/${tbl}_n.cg"); z=$(cg_summ "$dir/${tbl}_0.cg")
		a=$(cg_incl "$dir/${tbl}_n.cg" $fns); a0=$(cg_incl "$dir/${tbl}_0.cg" $fns)
		qn=$(cg_summ "$dir/${tbl}_qn.cg"); q0=$(cg_summ "$dir/${tbl}_q0.cg")
		qa=$(cg_incl "$dir/${tbl}_qn.cg" $qfns); qa0=$(cg_incl "$dir/${tbl}_q0.cg" $qfns)
		python3 -c "print('w6,$ver,$rows,$probes,$am,%.1f,%.1f,%.1f,%.1f' % (($n - $z) / $probes, ($a - $a0) / $probes, ($qn - $q0) / $probes, ($qa - $qa0) / $probes))"
	done
} >bench/results/w6_callgrind.csv
cat bench/results/w6_callgrind.csv

PYTHONPATH=/opt/quickstep/pylib python3 - "$ver" "$rows" "$probes" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
ver, rows, probes = sys.argv[1:]
r = {x["am"]: x for x in csv.DictReader(open("bench/results/w6_callgrind.csv"))}
fig, axes = plt.subplots(1, 4, figsize=(15, 3.8))
for ax, (m, title) in zip(axes, [("total_ir_per_probe", "nested-loop probe, whole\n(executor + index + heap)"),
                                  ("am_ir_per_probe", "nested-loop probe, index AM\n(rescan + gettuple)"),
                                  ("query_ir_per_probe", "point query, whole statement\n(PL/pgSQL loop)"),
                                  ("query_am_ir_per_probe", "point query, index AM\n(begin + rescan + gettuple + end)")]):
    v = [float(r[am][m]) for am in ("btree", "csbtree")]
    ax.bar(["btree", "csbtree"], v, color=["#888888", "#3b75af"])
    for i, x in enumerate(v):
        ax.text(i, x, "%.0f" % x, ha="center", va="bottom", fontsize=9)
    ax.set_title("%s\ncsbtree/btree = %.2f" % (title, v[1] / v[0]), fontsize=9)
    ax.set_ylabel("instructions per probe")
fig.suptitle("W6 callgrind: %s int4 keys, %s probes, PostgreSQL %s" % (rows, probes, ver), fontsize=10)
fig.tight_layout()
fig.savefig("bench/results/w6_callgrind.png", dpi=100)
PY
