#!/usr/bin/env bash
# W5 (callgrind): instructions per W5 write transaction, heap against
# column tables, counted exactly by callgrind (bench/lib/callgrind.sh).
#   bench/w5/callgrind.sh              (ROWS=200000, TXNS=2000)
# The table and the transaction are W5's (bench/w5/w5.py): a table of ROWS
# rows loaded by INSERT ... SELECT (the column table's straight into sealed
# blocks) with a btree primary key, then per transaction one UPDATE of a
# random row's non-key columns and one INSERT of a new row (fixed seed, the
# same for both AMs).  A single-user backend runs no merge worker: this
# counts the write path alone (the delta's insert, a main row's delete and
# its move to the delta, their planning and WAL); the merges are W5's
# sustained run's business.  Writes bench/results/w5_callgrind.csv.
# Environment: PGVER (15), W5CG_PORT (56250), W5CG_DIR, W5CG_NOINIT=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
port=${W5CG_PORT:-56250}
dir=${W5CG_DIR:-/tmp/qs-w5cg}
rows=${ROWS:-200000}
txns=${TXNS:-2000}
ams=${AMS:-heap quickstep_column}
bindir=$(pg_bin "$ver")

. bench/lib/callgrind.sh
cg_setup()
{
	"$bindir/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "
		CREATE TABLE t (id int8 PRIMARY KEY, k int4, a int4, b int4, v float8, s text) USING $1;
		SELECT setseed(0.5);
		INSERT INTO t
		  SELECT g, (random() * 1000)::int4, (random() * 1e6)::int4, (random() * 1e6)::int4,
		         random() * 100, md5(g::text)
		    FROM generate_series(1, $rows) g;
		CREATE SEQUENCE t_seq START $((rows + 1));" -c "VACUUM ANALYZE t" >/dev/null
}

NOINIT=${W5CG_NOINIT:-} cg_init_all

python3 - "$rows" "$txns" "$dir" <<'PY'
import random, sys
rows, n, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pre = "SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.relname IN ('t', 't_pkey')\n"
for tag, k in (("n", n), ("0", 0)):
    r = random.Random(5)
    with open(f"{d}/txn_{tag}.sql", "w") as f:
        f.write(pre)
        for _ in range(k):
            i = r.randint(1, rows)
            f.write(f"UPDATE t SET a = a + 1, v = v + 0.5 WHERE id = {i}\n")
            f.write(f"INSERT INTO t VALUES (nextval('t_seq'), {i} % 1000, {i} % 1000000, "
                    f"{i} % 1000000, {i} * 0.001, 'w5')\n")
PY
mkdir -p bench/results
out=bench/results/w5_callgrind.csv
[ -f "$out" ] || echo "pg,rows,txns,am,commit,ir_per_txn" >"$out"
commit=$(git rev-parse --short HEAD)
for am in $ams; do
	echo "$ver,$rows,$txns,$am,$commit,$(cg_measure "$am")" | tee -a "$out"
done
