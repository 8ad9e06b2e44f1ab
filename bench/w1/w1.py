"""W1 (paper 000 section 3): the selection grid on Narrow-U.

Table Narrow-U: 10 int4 columns c1..c10, values uniform in 1..1e8 (fixed
seed), 10M rows (1M with --quick; --scale multiplies).  Query
    SELECT c1..ck FROM t WHERE c1 >= X     (k = 0 means count(*))
at selectivity 0.1/1/10/50/100 % and projection k = 0, 1, 3, 5, 10.

Systems, all measured in this run:
  heap seqscan    the baseline: heap with index and bitmap scans disabled
  heap+btree      heap with a btree on c1, the planner's choice of plan
  <am>            each quickstep table access method on this server, the
                  planner's choice (its scan node is recorded)
Each figure is the median of --runs runs (min and max beside it) after one
warm-up run, as a ratio to the heap seqscan of the same cell.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

SELECTIVITIES = [0.1, 1, 10, 50, 100]
PROJECTIONS = [0, 1, 3, 5, 10]
NO_INDEX = "SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;"


def query(k, sel):
    x = int(1e8 * (1 - sel / 100.0)) + 1
    cols = "count(*)" if k == 0 else ", ".join(f"c{i}" for i in range(1, k + 1))
    return f"SELECT {cols} FROM {{t}} WHERE c1 >= {x}"


def scan_node(srv, q, setup):
    out = srv.sql(f"{setup} EXPLAIN (FORMAT JSON) {q}")
    plan = json.loads(out[out.index("["):])[0]["Plan"]
    stack = [plan]
    while stack:
        n = stack.pop()
        if "Relation Name" in n:
            return n["Node Type"]
        stack.extend(n.get("Plans", []))
    return plan["Node Type"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    a = ap.parse_args()
    rows = int((1_000_000 if a.quick else 10_000_000) * a.scale)

    srv = qsbench.Server(a.pg, 55600 + int(a.pg), f"/tmp/quickstep-bench/w1-pg{a.pg}/data")
    srv.start()
    try:
        mem = qsbench.memcpy_gbps()
        cols = ", ".join(f"c{i} int4" for i in range(1, 11))
        gen = ", ".join("1 + (random() * 99999999)::int4" for _ in range(10))
        srv.sql(f"CREATE TABLE narrow_u_heap ({cols}) USING heap")
        srv.sql(f"SELECT setseed(0.1); INSERT INTO narrow_u_heap SELECT {gen} FROM generate_series(1, {rows})")
        srv.sql("CREATE INDEX ON narrow_u_heap (c1)")
        systems = [("heap seqscan", "narrow_u_heap", NO_INDEX), ("heap+btree", "narrow_u_heap", "")]
        for am in srv.table_ams()[1:]:
            try:
                srv.sql(f"CREATE TABLE narrow_u_{am} ({cols}) USING {am}")
                srv.sql(f"INSERT INTO narrow_u_{am} SELECT * FROM narrow_u_heap")
                systems.append((am, f"narrow_u_{am}", ""))
            except Exception as e:  # an AM that cannot load the table is reported, not hidden
                print(f"w1: {am} skipped: {getattr(e, 'stderr', e)}", file=sys.stderr)
        srv.sql("VACUUM ANALYZE")
        sizes = {t: int(srv.sql(f"SELECT pg_table_size('{t}')")) for _, t, _ in systems}

        meta = dict(server=srv.version_string(), commit=qsbench.commit(), rows=rows,
                    settings=qsbench.SERVER_CONF.replace("\n", "; ").strip("; "))
        out = []
        for sel in SELECTIVITIES:
            for k in PROJECTIONS:
                base = None
                for name, table, setup in systems:
                    q = query(k, sel).format(t=table)
                    med, lo, hi = srv.measure(q, setup, runs=a.runs)
                    base = base or med
                    out.append(dict(workload="W1", table="Narrow-U", system=name, selectivity_pct=sel,
                                    projected=k, plan=scan_node(srv, q, setup), runs=a.runs,
                                    median_ms=round(med, 3), min_ms=round(lo, 3), max_ms=round(hi, 3),
                                    ratio_to_heap_seqscan=round(base / med, 3),
                                    table_bytes=sizes[table],
                                    scan_gbps=round(sizes[table] / (med / 1000) / 1e9, 3),
                                    memcpy_gbps=mem[0], memcpy_min=mem[1], memcpy_max=mem[2], **meta))
                    print(f"w1 sel={sel:>5}% k={k:>2} {name:<14} {med:9.2f} ms "
                          f"[{lo:.2f}-{hi:.2f}] x{base / med:5.2f} ({out[-1]['plan']})")
        path = qsbench.write_csv("w1_narrow_u.csv", out)
        plot(out, path.replace(".csv", ".png"), meta, mem)
        print(f"w1: wrote {path}")
    finally:
        srv.stop()


def plot(rows, png, meta, mem):
    plt = qsbench.pyplot()
    systems = list(dict.fromkeys(r["system"] for r in rows))
    fig, axes = plt.subplots(1, len(PROJECTIONS), figsize=(4 * len(PROJECTIONS), 4.2), sharey=True)
    for ax, k in zip(axes, PROJECTIONS):
        for s in systems:
            pts = [r for r in rows if r["system"] == s and r["projected"] == k]
            ax.errorbar([r["selectivity_pct"] for r in pts], [r["median_ms"] for r in pts],
                        yerr=[[r["median_ms"] - r["min_ms"] for r in pts],
                              [r["max_ms"] - r["median_ms"] for r in pts]],
                        marker="o", capsize=3, label=s)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title("count(*)" if k == 0 else f"{k} column(s) projected")
        ax.set_xlabel("selectivity (%)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("execution time (ms, median of runs; bars min-max)")
    axes[0].legend()
    fig.suptitle(f"W1 Narrow-U, {meta['rows']:,} rows, PostgreSQL {meta['server']}, commit {meta['commit']}; "
                 f"memcpy {mem[0]:.1f} GB/s")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
