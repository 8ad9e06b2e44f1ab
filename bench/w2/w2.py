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
pgbench_tellers are small tables updated by every transaction), and the
pages of their indexes.  Last, mode select-ios: `pgbench -S` again after
an index-only-scan-friendly index (`pgbench_accounts (aid) INCLUDE
(abalance)`, the one column -S reads) and a VACUUM that sets the visibility
map, RUNS runs per system round-robin; the plan (Index Only Scan) and its
heap fetches are checked on each system first and recorded (`plan`).  It
runs after the other modes, whose updates the extra index would slow.
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

ALL_MODES = [("tpcb", []), ("select-only", ["-S"]), ("select-ios", ["-S"])]
IOS_INDEX = "CREATE INDEX w2_accounts_aid_bal ON pgbench_accounts (aid) INCLUDE (abalance)"
IOS_QUERY = "SELECT abalance FROM pgbench_accounts WHERE aid = 4242"
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
        plans = {}
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), scale=a.scale, clients=8,
                    threads=2, seconds=secs,
                    settings=(qsbench.SERVER_CONF + "fsync = off\n").replace("\n", "; ").strip("; "))
        run_phase(srv, systems, [m for m in MODES if m[0] != "select-ios"], a.runs, secs, tps, wal, errors)
        # sizes after TPC-B and select-only, before select-ios adds its index
        tables = table_stats(srv, systems, meta)
        if any(m[0] == "select-ios" for m in MODES):
            for am, db in systems:
                plans[am] = ios_setup(srv, db)
                print(f"w2 select-ios {am:<14} {plans[am]}")
            run_phase(srv, systems, [m for m in MODES if m[0] == "select-ios"], a.runs, secs, tps, wal, errors)
        write_results(systems, tps, wal, errors, plans, tables, meta)
    finally:
        srv.stop()


def ios_setup(srv, db):
    """The covering index, a VACUUM that sets the visibility map, and the plan
    of -S's query with its heap fetches (EXPLAIN ANALYZE), as one line."""
    srv.sql(IOS_INDEX, db=db)
    srv.sql("VACUUM (ANALYZE) pgbench_accounts", db=db)
    out = srv.sql(f"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) {IOS_QUERY}", db=db)
    node = out.splitlines()[0].split("  (")[0].strip()
    fetches = re.search(r"Heap Fetches: ([0-9]+)", out)
    return f"{node}; heap fetches {fetches.group(1) if fetches else 'n/a'}"


def run_phase(srv, systems, modes, runs, secs, tps, wal, errors):
    """RUNS rounds, each mode, each system in turn (round-robin: a noisy
    moment hurts all systems alike)."""
    for run in range(runs):
        for mode, flags in modes:
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
                    print(f"w2 run {run + 1}/{runs} {mode:<11} {am:<14} {t:10.1f} tps "
                          f"{nbytes / ntx:8.0f} WAL bytes/tx {nfpi / ntx:6.3f} page images/tx")
                except subprocess.CalledProcessError as e:
                    errors[(am, mode)] = e.stderr.strip()[-300:]
                    print(f"w2: {am} {mode} failed: {errors[(am, mode)]}", file=sys.stderr)


def write_results(systems, tps, wal, errors, plans, tables, meta):
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
                             plan=plans.get(am, "") if mode == "select-ios" else "",
                             errors=errors.get((am, mode), ""), **meta))
    path = qsbench.write_csv("w2_tables.csv", tables)
    print(f"w2: wrote {path}")
    path = qsbench.write_csv("w2_pgbench.csv", rows)
    plot(rows, path.replace(".csv", ".png"), meta)
    print(f"w2: wrote {path}")


def table_stats(srv, systems, meta):
    """Each system's pgbench tables after the runs: pages, their indexes'
    pages and the HOT share."""
    rows = []
    tables = ",".join(f"'{t}'" for t in TABLES)
    for am, db in systems:
        # the pgbench backends have exited, so their counts are flushed
        out = srv.sql("SELECT c.relname, pg_relation_size(c.oid) / current_setting('block_size')::int, "
                      "pg_indexes_size(c.oid) / current_setting('block_size')::int, "
                      "s.n_tup_upd, s.n_tup_hot_upd FROM pg_class c "
                      "JOIN pg_stat_user_tables s ON s.relid = c.oid "
                      f"WHERE c.relname IN ({tables}) ORDER BY c.relname", db=db)
        for line in out.splitlines():
            rel, pages, ipages, upd, hot = line.split("|")
            share = int(hot) / int(upd) if int(upd) else 0.0
            rows.append(dict(workload="W2", system=am, table=rel, pages=int(pages), index_pages=int(ipages),
                             n_tup_upd=int(upd), n_tup_hot_upd=int(hot), hot_share=round(share, 3), **meta))
            print(f"w2 after runs {am:<14} {rel:<17} {int(pages):8d} pages {int(ipages):8d} index pages "
                  f"{int(upd):9d} updates {share:6.1%} HOT")
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
