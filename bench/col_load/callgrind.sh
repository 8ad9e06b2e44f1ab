#!/usr/bin/env bash
# Column bulk load (callgrind): instructions of one COPY of ROWS W1
# Narrow-U-shaped rows (10 int4, uniform in 0..1e8, fixed seed) into an
# empty table, heap against quickstep_column, counted exactly by callgrind
# in a single-user backend (bench/lib/callgrind.sh: the run minus a run of
# SELECT 1, so startup and shutdown cancel out).  Kernel time (page faults,
# writes) is not an instruction: the wall-clock figure is run.sh's.
#   bench/col_load/callgrind.sh          (PGVER=15, ROWS=300000)
# Prints "AM instructions" per AM.  Environment: PGVER, ROWS, AMS,
# CLCG_PORT (56270), CLCG_DIR (/tmp/qs-colload-cg).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

ver=${PGVER:-15}
port=${CLCG_PORT:-56270}
dir=${CLCG_DIR:-/tmp/qs-colload-cg}
rows=${ROWS:-300000}
txns=1
ams=${AMS:-heap quickstep_column}
bindir=$(pg_bin "$ver")

mkdir -p "$dir"
chown postgres: "$dir" 2>/dev/null || true
. bench/lib/callgrind.sh
cg_setup()
{
	"$bindir/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "
		CREATE TABLE t (c1 int4, c2 int4, c3 int4, c4 int4, c5 int4,
		                c6 int4, c7 int4, c8 int4, c9 int4, c10 int4) USING $1;" -c "
		SELECT setseed(0.42);" -c "
		COPY (SELECT (random() * 1e8)::int4, (random() * 1e8)::int4, (random() * 1e8)::int4,
		             (random() * 1e8)::int4, (random() * 1e8)::int4, (random() * 1e8)::int4,
		             (random() * 1e8)::int4, (random() * 1e8)::int4, (random() * 1e8)::int4,
		             (random() * 1e8)::int4
		        FROM generate_series(1, $rows)) TO '$dir/data.copy';" -c "CHECKPOINT;"
}
echo "COPY t FROM '$dir/data.copy';" >"$dir/txn_n.sql"
echo "SELECT 1;" >"$dir/txn_0.sql"
cg_init_all
for am in $ams; do
	echo "$am $(cg_measure "$am")"
done
