"""W5, sustained part (issue 14, paper 004 section 7): single-row writes to a
column table while the background merge worker runs at its defaults, against
the same load on heap, with a concurrent analytic query.

One server, the merge worker on with the extension's defaults
(quickstep.merge_workers 1, merge_naptime 10 s, merge_threshold 100,000).
Two tables of ROWS rows (2M; --quick: 200k), loaded by INSERT ... SELECT
(the column table's straight into sealed blocks), each with a btree primary
key:

    t_<system> (id int8 PRIMARY KEY, k int4, a int4, b int4, v float8, s text)

A pgbench script of one UPDATE of a random row (a non-key column) and one
INSERT of a new row (ids from a sequence), run for SECONDS (300; --quick 30)
with 2 and then 8 clients, heap then column for each client count.  While
pgbench runs, one more session runs the analytic query

    SELECT k % 10, count(*), sum(a), avg(v) FROM t WHERE b < 500000 GROUP BY 1

back to back (timed by the server: EXPLAIN ANALYZE, TIMING OFF) and a
sampler records the column table's delta rows and merge counters
(quickstep.column_stats) every SAMPLE seconds.  Before the writes, the same
analytic query on the idle table: median of 5.

Reported (bench/results/w5_sustained.csv, w5_delta.csv, w5_sustained.png):
write TPS per system and client count with the ratio column / heap (target
>= 0.8), the analytic query's median and 90th percentile latency under load
against its idle latency and against heap's under the same load, merges and
rows merged during the run, merge throughput (rows merged / worker ms), and
the delta's size over time.

The worker's trigger is the server's default, so over a 5-minute run the
delta grows to about 100,000 movable rows between merges; each merge writes
a new sealed block of the rows it moved (src/merge/README.md).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

SYSTEMS = [("heap", "heap"), ("column", "quickstep_column")]
ANALYTIC = "SELECT k % 10, count(*), sum(a), avg(v) FROM {t} WHERE b < 500000 GROUP BY 1"


def load(srv, table, am, rows):
    srv.sql(f"""
        DROP TABLE IF EXISTS {table};
        DROP SEQUENCE IF EXISTS {table}_seq;
        CREATE TABLE {table} (id int8 PRIMARY KEY, k int4, a int4, b int4, v float8, s text) USING {am};
        SELECT setseed(0.5);
        INSERT INTO {table}
          SELECT g, (random() * 1000)::int4, (random() * 1e6)::int4, (random() * 1e6)::int4,
                 random() * 100, md5(g::text)
            FROM generate_series(1, {rows}) g;
        CREATE SEQUENCE {table}_seq START {rows + 1};""")
    srv.sql(f"VACUUM ANALYZE {table}")


def script(table, rows):
    return (f"\\set id random(1, {rows})\n"
            f"UPDATE {table} SET a = a + 1, v = v + 0.5 WHERE id = :id;\n"
            f"INSERT INTO {table} VALUES (nextval('{table}_seq'), :id % 1000, :id % 1000000, "
            f":id % 1000000, :id * 0.001, 'w5');\n")


def stats(srv, table):
    out = srv.sql(f"SELECT delta_rows, merges, rows_merged, merge_ms FROM quickstep.column_stats "
                  f"WHERE relid = '{table}'::regclass")
    return [float(x) for x in out.split("|")]


def run_load(srv, table, is_column, clients, secs, rows, sample, tmp):
    path = os.path.join(tmp, f"{table}.sql")
    with open(path, "w") as f:
        f.write(script(table, rows))
    os.chmod(tmp, 0o755)
    os.chmod(path, 0o644)
    stop = threading.Event()
    lat, series = [], []
    t0 = time.time()

    def analytic():
        while not stop.is_set():
            lat.append(srv.exec_ms(ANALYTIC.format(t=table)))

    def sampler():
        while not stop.is_set():
            if is_column:
                series.append((round(time.time() - t0, 1), *stats(srv, table)))
            stop.wait(sample)

    before = stats(srv, table) if is_column else None
    threads = [threading.Thread(target=analytic), threading.Thread(target=sampler)]
    for th in threads:
        th.start()
    try:
        r = subprocess.run([f"{srv.bindir}/pgbench", "-n", "-c", str(clients), "-j", str(min(clients, 2)),
                            "-T", str(secs), "-f", path, "postgres"], check=True, text=True,
                           capture_output=True, env=srv.env)
    finally:
        stop.set()
        for th in threads:
            th.join()
    tps = float(re.search(r"tps = ([0-9.]+)", r.stdout).group(1))
    after = stats(srv, table) if is_column else None
    return tps, lat, series, before, after


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--seconds", type=int, default=None)
    ap.add_argument("--clients", default="2,8")
    ap.add_argument("--sample", type=float, default=5.0)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    a = ap.parse_args()
    rows = a.rows or (200_000 if a.quick else 2_000_000)
    secs = a.seconds or (30 if a.quick else 300)
    clients = [int(c) for c in a.clients.split(",")]

    srv = qsbench.Server(a.pg, 55700 + int(a.pg), f"/tmp/quickstep-bench/w5-pg{a.pg}/data")
    srv.start()
    out, series_rows = [], []
    try:
        settings = srv.sql("SELECT string_agg(name || '=' || setting, '; ' ORDER BY name) FROM pg_settings "
                           "WHERE name LIKE 'quickstep.merge%'")
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), rows=rows, seconds=secs,
                    settings=(qsbench.SERVER_CONF.replace("\n", "; ").strip("; ") + "; " + settings))
        with tempfile.TemporaryDirectory() as tmp:
            for n in clients:
                res = {}
                for name, am in SYSTEMS:
                    table = f"t_{name}"
                    load(srv, table, am, rows)
                    idle = [srv.exec_ms(ANALYTIC.format(t=table)) for _ in range(6)][1:]
                    tps, lat, series, before, after = run_load(srv, table, name == "column", n, secs, rows,
                                                                a.sample, tmp)
                    res[name] = (tps, statistics.median(lat) if lat else None)
                    merged = (after[2] - before[2]) if after else ""
                    merge_ms = (after[3] - before[3]) if after else ""
                    row = dict(workload="W5-sustained", system=name, clients=n, tps=round(tps, 1),
                               analytic_idle_ms=round(statistics.median(idle), 2),
                               analytic_load_ms=round(statistics.median(lat), 2) if lat else "",
                               analytic_load_p90_ms=round(pct(lat, 0.9), 2) if lat else "",
                               analytic_runs=len(lat),
                               merges=int(after[1] - before[1]) if after else "",
                               rows_merged=int(merged) if after else "",
                               merge_rows_per_s=round(merged / (merge_ms / 1000.0)) if after and merge_ms else "",
                               max_delta_rows=int(max(s[1] for s in series)) if series else "",
                               final_delta_rows=int(after[0]) if after else "")
                    out.append(row)
                    for s in series:
                        series_rows.append(dict(clients=n, t_s=s[0], delta_rows=int(s[1]), merges=int(s[2]),
                                                rows_merged=int(s[3]), **meta))
                    print(f"w5 {n} clients {name:<7} {tps:9.1f} tps, analytic idle "
                          f"{row['analytic_idle_ms']} ms, under load {row['analytic_load_ms']} ms "
                          f"(p90 {row['analytic_load_p90_ms']}), merges {row['merges']}, "
                          f"rows merged {row['rows_merged']}, max delta {row['max_delta_rows']}")
                    srv.sql(f"DROP TABLE {table}; DROP SEQUENCE {table}_seq")
                for row in out:
                    if row["clients"] == n:
                        row["tps_ratio_to_heap"] = round(row["tps"] / res["heap"][0], 3)
                        hl = res["heap"][1]
                        row["analytic_ratio_to_heap_load"] = (
                            round(row["analytic_load_ms"] / hl, 3) if hl and row["analytic_load_ms"] != "" else "")
                        row.update(meta)
        path = qsbench.write_csv("w5_sustained.csv", out)
        if series_rows:
            qsbench.write_csv("w5_delta.csv", series_rows)
        plot(out, series_rows, path.replace(".csv", ".png"), meta)
        print(f"w5: wrote {path}")
    finally:
        srv.stop()


def plot(rows, series, png, meta):
    plt = qsbench.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.5))
    labels = [f"{r['system']}\n{r['clients']} cl." for r in rows]
    xs = range(len(rows))
    axes[0].bar(xs, [r["tps"] for r in rows],
                color=["tab:gray" if r["system"] == "heap" else "tab:blue" for r in rows])
    axes[0].set_xticks(list(xs), [f"{lb}\n×{r['tps_ratio_to_heap']}" for lb, r in zip(labels, rows)])
    axes[0].set_ylabel("write TPS (update + insert)")
    axes[0].set_title("write throughput (ratio to heap)")
    w = 0.4
    axes[1].bar([x - w / 2 for x in xs], [r["analytic_idle_ms"] for r in rows], w, label="idle")
    axes[1].bar([x + w / 2 for x in xs], [r["analytic_load_ms"] or 0 for r in rows], w, label="under writes")
    axes[1].set_xticks(list(xs), labels)
    axes[1].set_ylabel("analytic query ms (median)")
    axes[1].set_title("concurrent analytic query")
    axes[1].legend()
    for n in sorted({s["clients"] for s in series}):
        pts = [s for s in series if s["clients"] == n]
        axes[2].plot([p["t_s"] for p in pts], [p["delta_rows"] for p in pts], label=f"{n} clients")
    axes[2].set_xlabel("seconds")
    axes[2].set_ylabel("delta rows (column table)")
    axes[2].set_title("delta size while the worker merges")
    axes[2].legend()
    fig.suptitle(f"W5 sustained: {meta['rows']} rows, {meta['seconds']} s per run, "
                 f"PostgreSQL {meta['server']}, commit {meta['commit']}")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
