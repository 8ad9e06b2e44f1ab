#!/usr/bin/env bash
# W6: csbtree vs btree on an int4 key, in the same run on the same server.
#   bench/w6/run.sh [--quick]     (quick: 1M rows, full: 10M rows)
# Measures, per access method, RUNS times (median, min, max):
#   build_s      CREATE INDEX time
#   size_mb      index size
#   probe_kps    point probes/s: nested-loop join of PROBES random keys
#   range_s      time of 20 index range scans of 1% of the keys each
# Writes bench/results/w6.csv and bench/results/w6.png.
# Environment: PGVER (18), PG18_BIN/PG15_BIN, W6_PORT (56200), W6_DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh

quick=0
[ "${1:-}" = "--quick" ] && quick=1
ver=${PGVER:-18}
port=${W6_PORT:-56200}
dir=${W6_DIR:-/tmp/qs-w6}
runs=${RUNS:-5}
if [ $quick = 1 ]; then rows=1000000; probes=100000; else rows=10000000; probes=1000000; fi
bindir=$(pg_bin "$ver")
psql_() { "$bindir/psql" -X -q -At -h /tmp -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }

bash scripts/build.sh "$ver" >/dev/null
bash scripts/cluster.sh stop "$ver" "$dir/data" 2>/dev/null || true
rm -rf "$dir"
QS_EXTRA_CONF="shared_buffers = 512MB
maintenance_work_mem = 512MB
max_parallel_maintenance_workers = 0
max_parallel_workers_per_gather = 0
jit = off" bash scripts/cluster.sh start "$ver" "$dir/data" "$port"
trap 'bash scripts/cluster.sh stop "$ver" "$dir/data"' EXIT

psql_ <<SQL
CREATE EXTENSION quickstep_am;
CREATE TABLE w6 (k int4, pad int4);
INSERT INTO w6 SELECT (i::int8 * 7919 % $rows)::int4, i FROM generate_series(0, $rows - 1) i;
CREATE TABLE probes (k int4);
INSERT INTO probes SELECT (i::int8 * 104729 % $rows)::int4 FROM generate_series(1, $probes) i;
VACUUM ANALYZE w6;
ANALYZE probes;
CREATE FUNCTION w6_time(q text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp(); r record;
BEGIN
	IF q ~* '^\s*select' THEN
		FOR r IN EXECUTE q LOOP END LOOP;
	ELSE
		EXECUTE q;
	END IF;
	RETURN extract(epoch FROM clock_timestamp() - t0);
END \$\$;
CREATE FUNCTION w6_ranges() RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp(); n bigint; w int := $rows / 100;
BEGIN
	FOR j IN 0..19 LOOP
		SELECT count(pad) INTO n FROM w6 WHERE k >= j * w * 4 AND k < j * w * 4 + w;
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t0);
END \$\$;
SQL

raw="$dir/raw.csv"
echo "am,run,build_s,size_mb,probe_kps,range_s" >"$raw"
for run in $(seq 1 "$runs"); do
	for am in btree csbtree; do
		out=$(psql_ <<SQL
\\set QUIET 1
SELECT w6_time('CREATE INDEX w6_k ON w6 USING $am (k)');
SELECT pg_relation_size('w6_k') / 1048576.0;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off;
SET enable_seqscan = off; SET enable_material = off;
SELECT w6_time('SELECT count(t.pad) FROM probes p JOIN w6 t ON t.k = p.k');
SELECT w6_ranges();
RESET ALL;
DROP INDEX w6_k;
SQL
)
		set -- $out
		kps=$(python3 -c "print($probes / $3 / 1000.0)")
		echo "$am,$run,$1,$2,$kps,$4" >>"$raw"
		echo "run $run $am: build $1 s, size $2 MB, probes $kps k/s, ranges $4 s"
	done
done

# the plans, to show which index answered
psql_ <<SQL >"$dir/plans.txt"
CREATE INDEX w6_k ON w6 USING csbtree (k);
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off;
SET enable_seqscan = off; SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT count(t.pad) FROM probes p JOIN w6 t ON t.k = p.k;
EXPLAIN (COSTS OFF) SELECT count(pad) FROM w6 WHERE k >= 0 AND k < 10000;
SQL
cat "$dir/plans.txt"

mkdir -p bench/results
PYTHONPATH=/opt/quickstep/pylib python3 - "$raw" "$rows" "$probes" "$ver" "$quick" <<'PY'
import csv, sys, statistics
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
raw, rows, probes, ver, quick = sys.argv[1:]
data = {}
for r in csv.DictReader(open(raw)):
    for m in ("build_s", "size_mb", "probe_kps", "range_s"):
        data.setdefault((r["am"], m), []).append(float(r[m]))
metrics = [("build_s", "CREATE INDEX (s)"), ("size_mb", "index size (MB)"),
           ("probe_kps", "point probes (k/s, higher is better)"), ("range_s", "20 range scans of 1% (s)")]
with open("bench/results/w6.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["workload", "pg", "rows", "probes", "am", "metric", "median", "min", "max", "runs"])
    for am in ("btree", "csbtree"):
        for m, _ in metrics:
            v = data[(am, m)]
            w.writerow(["w6", ver, rows, probes, am, m, "%.4f" % statistics.median(v),
                        "%.4f" % min(v), "%.4f" % max(v), len(v)])
fig, axes = plt.subplots(1, 4, figsize=(14, 3.6))
for ax, (m, title) in zip(axes, metrics):
    meds = [statistics.median(data[(am, m)]) for am in ("btree", "csbtree")]
    lo = [meds[i] - min(data[(am, m)]) for i, am in enumerate(("btree", "csbtree"))]
    hi = [max(data[(am, m)]) - meds[i] for i, am in enumerate(("btree", "csbtree"))]
    ax.bar(["btree", "csbtree"], meds, yerr=[lo, hi], capsize=6, color=["#888888", "#3b75af"])
    ax.set_title(title, fontsize=9)
fig.suptitle("W6: int4 key, %s rows, PostgreSQL %s, median of %d runs (bars: min-max)%s"
             % (rows, ver, len(data[("btree", "build_s")]), " [quick]" if quick == "1" else ""), fontsize=10)
fig.tight_layout()
fig.savefig("bench/results/w6.png", dpi=100)
print(open("bench/results/w6.csv").read())
PY
