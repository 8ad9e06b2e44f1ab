#!/usr/bin/env bash
# W2 (callgrind): instructions per TPC-B transaction, heap against the row
# layouts, counted exactly by valgrind's callgrind (the machine is shared:
# TPS is noise, instruction counts are not).
#   bench/w2/callgrind.sh              (SCALE=10, TXNS=1500, AMS=all four)
# For each table AM: `pgbench -i -s SCALE` into a data directory of its own
# (server stopped after), then per measurement a fresh copy of it is run by
# one single-user backend under callgrind (startup cancels out below; the
# shutdown checkpoint writes what the transactions dirtied): pg_prewarm of the
# four tables and their indexes, then TXNS pgbench TPC-B transactions
# (the same random aid/bid/tid/delta for every AM, fixed seed), once with
# TXNS and once with 0 transactions.  Per transaction:
#   ir_per_txn     (Ir with TXNS - Ir with 0) / TXNS
#   prune_per_txn  the same for the inclusive Ir of qs_page_prune_opt
#                  (heap: heap_page_prune_opt)
# Writes bench/results/w2_callgrind.csv; keeps the .cg files in W2CG_DIR.
# W2CG_NOINIT=1 reuses the data directories of the last run.
# Environment: PGVER (15), PG15_BIN/PG18_BIN, W2CG_PORT (56230), W2CG_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
port=${W2CG_PORT:-56230}
dir=${W2CG_DIR:-/tmp/qs-w2cg}
scale=${SCALE:-10}
txns=${TXNS:-1500}
ams=${AMS:-heap quickstep_nsm quickstep_pax quickstep_hpl}
bindir=$(pg_bin "$ver")

. bench/lib/callgrind.sh
cg_setup()
{
	PGOPTIONS="-c default_table_access_method=$1" \
		"$bindir/pgbench" -i -q -s "$scale" -h /tmp -p "$port" -U postgres postgres >/dev/null 2>&1
}

NOINIT=${W2CG_NOINIT:-} cg_init_all

# the transactions: pgbench's tpcb-like script with fixed random values
python3 - "$scale" "$txns" "$dir" <<'PY'
import random, sys
scale, n, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pre = ("SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.relname LIKE 'pgbench%'\n")
for tag, k in (("n", n), ("0", 0)):
    r = random.Random(16)
    with open(f"{d}/txn_{tag}.sql", "w") as f:
        f.write(pre)
        for _ in range(k):
            aid, bid, tid = r.randint(1, 100000 * scale), r.randint(1, scale), r.randint(1, 10 * scale)
            delta = r.randint(-5000, 5000)
            f.write("BEGIN\n")
            f.write(f"UPDATE pgbench_accounts SET abalance = abalance + {delta} WHERE aid = {aid}\n")
            f.write(f"SELECT abalance FROM pgbench_accounts WHERE aid = {aid}\n")
            f.write(f"UPDATE pgbench_tellers SET tbalance = tbalance + {delta} WHERE tid = {tid}\n")
            f.write(f"UPDATE pgbench_branches SET bbalance = bbalance + {delta} WHERE bid = {bid}\n")
            f.write(f"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ({tid}, {bid}, {aid}, {delta}, CURRENT_TIMESTAMP)\n")
            f.write("END\n")
PY
mkdir -p bench/results
out=bench/results/w2_callgrind.csv
[ -f "$out" ] || echo "pg,scale,txns,am,commit,ir_per_txn,prune_per_txn" >"$out"
commit=$(git rev-parse --short HEAD)
for am in $ams; do
	ir=$(cg_measure "$am")
	pf=qs_page_prune_opt
	[ "$am" = heap ] && pf=heap_page_prune_opt
	p=$(cg_incl "$dir/$am-n.cg" $pf)
	python3 -c "print('$ver,$scale,$txns,$am,$commit,$ir,%.0f' % (${p:-0} / $txns))" | tee -a "$out"
done
