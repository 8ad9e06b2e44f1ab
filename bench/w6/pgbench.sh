#!/usr/bin/env bash
# W6 (b): pgbench -S (select-only) with the accounts key indexed by csbtree
# vs btree, same run, same scale, same server.
#   bench/w6/pgbench.sh              (SCALE=10, CLIENTS=2, SECS=10, RUNS=5)
# PostgreSQL builds PRIMARY KEY constraints with btree only, so both sides
# drop pgbench_accounts_pkey and index aid with a UNIQUE index: USING btree
# (the baseline) or USING csbtree.  The runs alternate between the two
# (btree, csbtree, btree, ...), each after switching the index and warming
# it, so drift on this shared machine hits both alike.
# Writes bench/results/w6_pgbench.csv and .png.
# Environment: PGVER (18), PG18_BIN/PG15_BIN, W6_PORT (56220), W6_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-18}
port=${W6_PORT:-56220}
dir=${W6_DIR:-/tmp/qs-w6pgb}
scale=${SCALE:-10}
clients=${CLIENTS:-2}
secs=${SECS:-10}
runs=${RUNS:-5}
mode=${MODE:-prepared}
bindir=$(pg_bin "$ver")
psql_() { "$bindir/psql" -X -q -At -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

bash scripts/build.sh "$ver" >/dev/null
bash scripts/cluster.sh stop "$ver" "$dir/data" 2>/dev/null || true
rm -rf "$dir"
QS_EXTRA_CONF="shared_buffers = 512MB
max_parallel_workers_per_gather = 0
jit = off
autovacuum = off" bash scripts/cluster.sh start "$ver" "$dir/data" "$port"
trap 'bash scripts/cluster.sh stop "$ver" "$dir/data"' EXIT

psql_ -c 'CREATE EXTENSION quickstep_am'
"$bindir/pgbench" -q -i -s "$scale" -h /tmp -p "$port" -U postgres postgres >"$dir/init.log" 2>&1
psql_ -c 'ALTER TABLE pgbench_accounts DROP CONSTRAINT pgbench_accounts_pkey' -c 'VACUUM ANALYZE pgbench_accounts'

use_index() {
	psql_ <<SQL
DROP INDEX IF EXISTS accounts_aid;
CREATE UNIQUE INDEX accounts_aid ON pgbench_accounts USING $1 (aid);
ANALYZE pgbench_accounts;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(abalance) FROM pgbench_accounts WHERE aid > 0;
SQL
}

raw="$dir/raw.csv"
echo "am,run,tps" >"$raw"
for run in $(seq 1 "$runs"); do
	for am in btree csbtree; do
		use_index "$am" >/dev/null
		"$bindir/pgbench" -S -M "$mode" -c "$clients" -j "$clients" -T 3 -h /tmp -p "$port" -U postgres postgres >/dev/null 2>&1
		tps=$("$bindir/pgbench" -S -M "$mode" -c "$clients" -j "$clients" -T "$secs" -h /tmp -p "$port" -U postgres postgres 2>&1 |
			sed -nE 's/^tps = ([0-9.]+) .*/\1/p' | tail -1)
		echo "$am,$run,$tps" >>"$raw"
		echo "run $run $am: $tps tps"
	done
done
psql_ -c 'EXPLAIN (COSTS OFF) SELECT abalance FROM pgbench_accounts WHERE aid = 42' >"$dir/plan.txt"
cat "$dir/plan.txt"

mkdir -p bench/results
PYTHONPATH=/opt/quickstep/pylib python3 - "$raw" "$ver" "$scale" "$clients" "$secs" "$mode" <<'PY'
import csv, sys, statistics
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
raw, ver, scale, clients, secs, mode = sys.argv[1:]
d = {}
for r in csv.DictReader(open(raw)):
    d.setdefault(r["am"], []).append(float(r["tps"]))
with open("bench/results/w6_pgbench.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["workload", "pg", "scale", "clients", "secs", "mode", "am", "metric", "median", "min", "max", "runs"])
    for am in ("btree", "csbtree"):
        v = d[am]
        w.writerow(["w6_pgbench_S", ver, scale, clients, secs, mode, am, "tps",
                    "%.1f" % statistics.median(v), "%.1f" % min(v), "%.1f" % max(v), len(v)])
meds = [statistics.median(d[am]) for am in ("btree", "csbtree")]
fig, ax = plt.subplots(figsize=(5, 3.6))
ax.bar(["btree UNIQUE", "csbtree UNIQUE"], meds,
       yerr=[[meds[i] - min(d[am]) for i, am in enumerate(("btree", "csbtree"))],
             [max(d[am]) - meds[i] for i, am in enumerate(("btree", "csbtree"))]],
       capsize=6, color=["#888888", "#3b75af"])
ax.set_ylabel("tps (higher is better)")
ax.set_title("W6 pgbench -S, scale %s, %s clients, -M %s, %s s x %d runs\nPostgreSQL %s; csbtree/btree = %.2f (median; bars min-max)"
             % (scale, clients, mode, secs, len(d["btree"]), ver, meds[1] / meds[0]), fontsize=8)
fig.tight_layout()
fig.savefig("bench/results/w6_pgbench.png", dpi=100)
print(open("bench/results/w6_pgbench.csv").read())
PY
