"""W2 (paper 003 section 6.2): pgbench TPC-B and select-only, heap vs each
quickstep table access method.

For each system, `pgbench -i -s SCALE` creates the tables in a database of
their own under PGOPTIONS='-c default_table_access_method=<am>' (the primary
keys are btree, as pgbench makes them).  Then, round-robin over the systems so
that a noisy moment hurts all of them alike, RUNS runs of `pgbench -c 8 -j 2
-T SECONDS` for TPC-B and for select-only (-S).  Reported: median TPS with
min and max, and the ratio to heap's median from the same run.  After the
runs, each system's tables (w2_tables.csv): pages, updates and the share of
them that were HOT (pg_stat_user_tables.n_tup_hot_upd / n_tup_upd), the
figures that show what update chains cost a layout (pgbench_branches and
pgbench_tellers are small tables updated by every transaction).
`--modes tpcb` and `--ams heap,quickstep_nsm` pick a subset.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

ALL_MODES = [("tpcb", []), ("select-only", ["-S"])]
MODES = ALL_MODES
TABLES = ["pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"]


def pgbench(srv, db, args, env_extra=None):
    env = dict(srv.env, **(env_extra or {}))
    return subprocess.run([f"{srv.bindir}/pgbench", *args, db], check=True, text=True,
                          capture_output=True, env=env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=None)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    ap.add_argument("--modes", default=",".join(m for m, _ in ALL_MODES),
                    help="comma-separated subset of: " + ", ".join(m for m, _ in ALL_MODES))
    ap.add_argument("--ams", default=None,
                    help="comma-separated table access methods (default: heap and every quickstep AM)")
    a = ap.parse_args()
    global MODES
    MODES = [m for m in ALL_MODES if m[0] in a.modes.split(",")]
    if not MODES:
        ap.error(f"--modes: none of {a.modes!r} is a mode")
    secs = a.seconds or (10 if a.quick else 60)

    srv = qsbench.Server(a.pg, 55700 + int(a.pg), f"/tmp/quickstep-bench/w2-pg{a.pg}/data")
    srv.start()
    try:
        systems = []
        ams = srv.table_ams()
        if a.ams:
            unknown = set(a.ams.split(",")) - set(ams)
            if unknown:
                ap.error(f"--ams: not a table access method here: {', '.join(sorted(unknown))}")
            ams = [am for am in ams if am in a.ams.split(",")]
        for am in ams:
            db = f"w2_{am}"
            srv.sql(f"CREATE DATABASE {db}")
            try:
                pgbench(srv, db, ["-i", "-q", "-s", str(a.scale)],
                        {"PGOPTIONS": f"-c default_table_access_method={am}"})
                systems.append((am, db))
            except subprocess.CalledProcessError as e:
                print(f"w2: {am} skipped: pgbench -i failed: {e.stderr.strip()[-300:]}", file=sys.stderr)
        tps = {(am, mode): [] for am, _ in systems for mode, _ in MODES}
        wal = {(am, mode): [] for am, _ in systems for mode, _ in MODES}  # (bytes, images) per tx
        errors = {}
        for run in range(a.runs):
            for mode, flags in MODES:
                for am, db in systems:
                    try:
                        # the WAL of the run, after a checkpoint: every page's first change pays
                        # its full-page image in this run, as in any other
                        srv.sql("CHECKPOINT")
                        lsn0, fpi0 = srv.sql("SELECT pg_current_wal_lsn(), wal_fpi FROM pg_stat_wal").split("|")
                        r = pgbench(srv, db, ["-c", "8", "-j", "2", "-T", str(secs), *flags])
                        t = float(re.search(r"tps = ([0-9.]+)", r.stdout).group(1))
                        ntx = max(int(re.search(r"transactions actually processed: ([0-9]+)", r.stdout).group(1)), 1)
                        nbytes, nfpi = map(int, srv.sql(
                            f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn0}')::bigint, "
                            f"wal_fpi - {int(fpi0)} FROM pg_stat_wal").split("|"))
                        tps[(am, mode)].append(t)
                        wal[(am, mode)].append((nbytes / ntx, nfpi / ntx))
                        print(f"w2 run {run + 1}/{a.runs} {mode:<11} {am:<14} {t:10.1f} tps "
                              f"{nbytes / ntx:8.0f} WAL bytes/tx {nfpi / ntx:6.3f} page images/tx")
                    except subprocess.CalledProcessError as e:
                        errors[(am, mode)] = e.stderr.strip()[-300:]
                        print(f"w2: {am} {mode} failed: {errors[(am, mode)]}", file=sys.stderr)
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), scale=a.scale, clients=8,
                    threads=2, seconds=secs,
                    settings=(qsbench.SERVER_CONF + "fsync = off\n").replace("\n", "; ").strip("; "))
        rows = []
        for mode, _ in MODES:
            base = statistics.median(tps[("heap", mode)]) if tps.get(("heap", mode)) else None
            for am, _ in systems:
                v = tps[(am, mode)]
                if not v:
                    continue
                med = statistics.median(v)
                wb = statistics.median(x[0] for x in wal[(am, mode)])
                hb = statistics.median(x[0] for x in wal[("heap", mode)]) if wal.get(("heap", mode)) else None
                rows.append(dict(workload="W2", mode=mode, system=am, runs=len(v), median_tps=round(med, 1),
                                 min_tps=round(min(v), 1), max_tps=round(max(v), 1),
                                 ratio_to_heap=round(med / base, 3) if base else "",
                                 wal_bytes_per_tx=round(wb),
                                 wal_images_per_tx=round(statistics.median(x[1] for x in wal[(am, mode)]), 3),
                                 wal_ratio_to_heap=round(wb / hb, 3) if hb else "",
                                 errors=errors.get((am, mode), ""), **meta))
        path = qsbench.write_csv("w2_tables.csv", table_stats(srv, systems, meta))
        print(f"w2: wrote {path}")
        path = qsbench.write_csv("w2_pgbench.csv", rows)
        plot(rows, path.replace(".csv", ".png"), meta)
        print(f"w2: wrote {path}")
    finally:
        srv.stop()


def table_stats(srv, systems, meta):
    """Each system's pgbench tables after all runs: pages and HOT share."""
    rows = []
    tables = ",".join(f"'{t}'" for t in TABLES)
    for am, db in systems:
        # the pgbench backends have exited, so their counts are flushed
        out = srv.sql("SELECT c.relname, pg_relation_size(c.oid) / current_setting('block_size')::int, "
                      "s.n_tup_upd, s.n_tup_hot_upd FROM pg_class c "
                      "JOIN pg_stat_user_tables s ON s.relid = c.oid "
                      f"WHERE c.relname IN ({tables}) ORDER BY c.relname", db=db)
        for line in out.splitlines():
            rel, pages, upd, hot = line.split("|")
            share = int(hot) / int(upd) if int(upd) else 0.0
            rows.append(dict(workload="W2", system=am, table=rel, pages=int(pages), n_tup_upd=int(upd),
                             n_tup_hot_upd=int(hot), hot_share=round(share, 3), **meta))
            print(f"w2 after runs {am:<14} {rel:<17} {int(pages):8d} pages {int(upd):9d} updates "
                  f"{share:6.1%} HOT")
    return rows


def plot(rows, png, meta):
    plt = qsbench.pyplot()
    fig, axes = plt.subplots(1, len(MODES), figsize=(6 * len(MODES), 4), squeeze=False)
    for ax, (mode, _) in zip(axes[0], MODES):
        pts = [r for r in rows if r["mode"] == mode]
        xs = range(len(pts))
        ax.bar(xs, [r["median_tps"] for r in pts],
               yerr=[[r["median_tps"] - r["min_tps"] for r in pts], [r["max_tps"] - r["median_tps"] for r in pts]],
               capsize=4, color="tab:blue")
        ax.set_xticks(list(xs), [f"{r['system']}\n×{r['ratio_to_heap']}" for r in pts])
        ax.set_title(f"pgbench {mode}")
        ax.set_ylabel("TPS (median; bars min-max)")
    fig.suptitle(f"W2 pgbench scale {meta['scale']}, 8 clients, {meta['seconds']} s runs, "
                 f"PostgreSQL {meta['server']}, commit {meta['commit']}")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
