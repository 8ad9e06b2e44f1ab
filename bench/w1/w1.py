"""W1 (paper 000 section 3): the selection grid on Narrow-U and Strings.

Table Narrow-U: 10 int4 columns c1..c10, values uniform in 1..1e8 (fixed
seed), 10M rows (1M with --quick; --scale multiplies).  Table Strings: 10
text columns c1..c10 of 20 random characters (hex digits), 2M rows (200k
with --quick).  Query
    SELECT c1..ck FROM t WHERE c1 >= X     (k = 0 means count(*))
at selectivity 0.1/1/10/50/100 % and projection k = 0, 1, 3, 5, 10; for
Strings X is the quantile of c1 read from the loaded table (C collation).

Systems, all measured in this run:
  heap seqscan    the baseline: heap with index and bitmap scans disabled
  heap+btree      heap with a btree on c1, the planner's choice of plan
  <am>            each quickstep table access method on this server, the
                  planner's choice (its scan node is recorded)
  quickstep_column sorted
                  a column table WITH (quickstep.sort_key = 'c1'): every sealed block
                  sorted on c1, so the scan finds a block's run of matches by
                  binary search (issue 13's "predicate on the sort column")
  quickstep_column indexed
                  a column table WITH (quickstep.index_columns = 'c1'): rows in
                  arrival order (c1 unsorted), each sealed block with a CSB+-tree
                  index sub-block on c1's codes, which the scan probes for
                  selective ranges (paper 000 section 4.4) -- the counterpart of
                  heap+btree
Beside the grid, on Narrow-U, a 3-predicate conjunction of 1 % selectivity
(c1, c2 and c3 each below the cube root of 1 %, 21.5 %) at k = 0 and 1
(selectivity recorded as "conj3").  --ams limits the quickstep systems.
Each figure is the median of --runs runs (min and max beside it) after one
warm-up run, as a ratio to the heap seqscan of the same cell.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

SELECTIVITIES = [0.1, 1, 10, 50, 100]
PROJECTIONS = [0, 1, 3, 5, 10]
NO_INDEX = "SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;"


CONJ3_X = 21544347  # 1e8 * 0.01 ** (1/3): three independent uniform predicates of 1 %


def conj3_query(k):
    cols = "count(*)" if k == 0 else ", ".join(f"c{i}" for i in range(1, k + 1))
    return f"SELECT {cols} FROM {{t}} WHERE c1 < {CONJ3_X} AND c2 < {CONJ3_X} AND c3 < {CONJ3_X}"


def query(k, sel, threshold=None):
    """The W1 query; Narrow-U's X follows from the value range, Strings'
    is the quantile passed in."""
    if threshold is None:
        x = str(int(1e8 * (1 - sel / 100.0)) + 1)
    else:
        x = "'" + threshold.replace("'", "''") + "' COLLATE \"C\""
    cols = "count(*)" if k == 0 else ", ".join(f"c{i}" for i in range(1, k + 1))
    return f"SELECT {cols} FROM {{t}} WHERE c1 >= {x}"


TABLES = {
    # name: (file stem, column type, value generator ({i}: the column's
    # number, 1..10), rows in full size).  W7 (bench/w7) loads these too.
    "Narrow-U": ("narrow_u", "int4", "1 + (random() * 99999999)::int4", 10_000_000),
    # paper 000 section 3: column i uniform in 1..2^(2.7 i) (as bench/codec:
    # 1 + a uniform integer below floor(2^(2.7 i)), capped to int4)
    "Narrow-E": ("narrow_e", "int4",
                 "(1 + floor(random() * floor(least(2.0::float8 ^ (2.7 * {i}), 2147483647))))::int4",
                 10_000_000),
    "Strings": ("strings", 'text COLLATE "C"',
                "left(md5(random()::text) || md5(random()::text), 20)", 2_000_000),
}
# The selection grid runs on these; Narrow-E's grid (paper 000 predicates on
# its column 5) is not built: W7 measures its size.
GRID_TABLES = ("Narrow-U", "Strings")


def column_defs(ctype):
    return ", ".join(f"c{i} {ctype}" for i in range(1, 11))


def generate_sql(table, gen, rows):
    """INSERT of ROWS generated rows into TABLE, with W1's fixed seed."""
    vals = ", ".join(gen.format(i=i) for i in range(1, 11))
    return f"SELECT setseed(0.1); INSERT INTO {table} SELECT {vals} FROM generate_series(1, {rows})"


def scan_node(srv, q, setup):
    return srv.scan_node(q, setup)


def load(srv, stem, ctype, gen, rows, ams=None):
    """heap table (and btree on c1) plus one table per quickstep AM (those
    in AMS if given), same rows, and a column table sorted on c1; returns
    the systems to measure."""
    cols = column_defs(ctype)
    srv.sql(f"CREATE TABLE {stem}_heap ({cols}) USING heap")
    srv.sql(generate_sql(f"{stem}_heap", gen, rows))
    srv.sql(f"CREATE INDEX ON {stem}_heap (c1)")
    systems = [("heap seqscan", f"{stem}_heap", NO_INDEX), ("heap+btree", f"{stem}_heap", "")]
    variants = [(am, am, "") for am in srv.table_ams()[1:]]
    if "quickstep_column" in srv.table_ams():
        variants.append(("quickstep_column sorted", "quickstep_column", " WITH (quickstep.sort_key = 'c1')"))
        # the column table's counterpart of heap+btree: arrival order, with
        # CSB+-tree index sub-blocks on c1 in every sealed block
        variants.append(("quickstep_column indexed", "quickstep_column",
                         " WITH (quickstep.index_columns = 'c1')"))
    for name, am, opts in variants:
        if ams and name.split()[0] not in ams:
            continue
        t = f"{stem}_{name.replace(' ', '_')}"
        try:
            if opts:
                # CREATE TABLE AS hands no TID out while it loads, so the
                # blocks are sorted on the sort key; INSERT … SELECT leaves
                # them in arrival order (src/column/load.c)
                srv.sql(f"CREATE TABLE {t} USING {am}{opts} AS SELECT * FROM {stem}_heap")
            else:
                srv.sql(f"CREATE TABLE {t} ({cols}) USING {am}{opts}")
                srv.sql(f"INSERT INTO {t} SELECT * FROM {stem}_heap")
            systems.append((name, t, ""))
        except Exception as e:  # an AM that cannot load the table is reported, not hidden
            print(f"w1: {name} skipped: {getattr(e, 'stderr', e)}", file=sys.stderr)
    return systems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    ap.add_argument("--tables", default=",".join(GRID_TABLES), help="comma-separated: " + ", ".join(GRID_TABLES))
    ap.add_argument("--ams", default="", help="comma-separated quickstep AMs to measure (default: all)")
    a = ap.parse_args()
    ams = [x for x in a.ams.split(",") if x]
    for tname in a.tables.split(","):
        if tname not in GRID_TABLES:
            ap.error(f"no W1 grid on {tname} (tables: {', '.join(GRID_TABLES)})")

    srv = qsbench.Server(a.pg, 55600 + int(a.pg), f"/tmp/quickstep-bench/w1-pg{a.pg}/data")
    srv.start()
    try:
        mem = qsbench.memcpy_gbps()
        for tname in a.tables.split(","):
            stem, ctype, gen, full_rows = TABLES[tname]
            rows = int(full_rows / (10 if a.quick else 1) * a.scale)
            systems = load(srv, stem, ctype, gen, rows, ams)
            srv.sql("VACUUM ANALYZE")
            sizes = {t: int(srv.sql(f"SELECT pg_table_size('{t}')")) for _, t, _ in systems}
            pages = {t: int(srv.sql(f"SELECT pg_relation_size('{t}') / current_setting('block_size')::int"))
                     for _, t, _ in systems}
            for name, t, _ in systems:
                print(f"w1 {tname} {name:<14} {sizes[t]:>12} bytes, {rows / max(pages[t], 1):7.1f} rows/page")
            meta = dict(server=srv.version_string(), commit=qsbench.commit(), rows=rows,
                        settings=qsbench.SERVER_CONF.replace("\n", "; ").strip("; "))
            out = []
            cells = [(sel, k) for sel in SELECTIVITIES for k in PROJECTIONS]
            if ctype == "int4":
                cells += [("conj3", 0), ("conj3", 1)]
            for sel, k in cells:
                thr = None
                if ctype != "int4":
                    thr = srv.sql(f"SELECT percentile_disc({1 - sel / 100.0}) WITHIN GROUP (ORDER BY c1) "
                                  f"FROM {stem}_heap")
                base = None
                for name, table, setup in systems:
                    q = (conj3_query(k) if sel == "conj3" else query(k, sel, thr)).format(t=table)
                    med, lo, hi = srv.measure(q, setup, runs=a.runs)
                    base = base or med
                    out.append(dict(workload="W1", table=tname, system=name, selectivity_pct=sel,
                                    projected=k, plan=scan_node(srv, q, setup), runs=a.runs,
                                    median_ms=round(med, 3), min_ms=round(lo, 3), max_ms=round(hi, 3),
                                    ratio_to_heap_seqscan=round(base / med, 3),
                                    table_bytes=sizes[table],
                                    rows_per_page=round(rows / max(pages[table], 1), 1),
                                    scan_gbps=round(sizes[table] / (med / 1000) / 1e9, 3),
                                    memcpy_gbps=mem[0], memcpy_min=mem[1], memcpy_max=mem[2], **meta))
                    print(f"w1 {tname} sel={sel:>5}% k={k:>2} {name:<14} {med:9.2f} ms "
                          f"[{lo:.2f}-{hi:.2f}] x{base / med:5.2f} ({out[-1]['plan']})")
            path = qsbench.write_csv(f"w1_{stem}.csv", out)
            plot(out, path.replace(".csv", ".png"), meta, mem, tname)
            print(f"w1: wrote {path}")
    finally:
        srv.stop()


def plot(rows, png, meta, mem, tname):
    plt = qsbench.pyplot()
    systems = list(dict.fromkeys(r["system"] for r in rows))
    fig, axes = plt.subplots(1, len(PROJECTIONS), figsize=(4 * len(PROJECTIONS), 4.2), sharey=True)
    for ax, k in zip(axes, PROJECTIONS):
        for s in systems:
            pts = [r for r in rows if r["system"] == s and r["projected"] == k and r["selectivity_pct"] != "conj3"]
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
    fig.suptitle(f"W1 {tname}, {meta['rows']:,} rows, PostgreSQL {meta['server']}, commit {meta['commit']}; "
                 f"memcpy {mem[0]:.1f} GB/s")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
