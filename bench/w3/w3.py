"""W3 (paper 003 section 6.1, paper 002): TPC-H-like lineitem, Q1 and Q6.

lineitem is generated in SQL with the TPC-H specification's distributions
(section 4.2.3, simplified where the queries cannot tell): 1..7 lines per
order, quantity 1..50, the spec's retail price formula, discount 0..0.10,
tax 0..0.08, order dates 1992-01-01..1998-08-02, ship/commit/receipt dates
offset from them, return flag and line status derived from the dates as the
spec says, random ship instructions, modes and comments.  Scale 1 gives
about 6M rows (--quick: scale 0.1, 600k rows).

Systems: heap (the baseline; the planner's choice, parallel query at its
defaults) and each quickstep table access method on this server, among
them quickstep_column (loaded by INSERT … SELECT straight into sealed
column blocks, every row: see COLUMN_LOAD).  Each
figure is the median of --runs runs after a warm-up, with min and max, as
the ratio heap_median / system_median.  The size of each table (W7) and
its rows per page are reported beside.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

COLUMNS = """l_orderkey int8 NOT NULL, l_partkey int4 NOT NULL, l_suppkey int4 NOT NULL,
 l_linenumber int4 NOT NULL, l_quantity numeric(15,2) NOT NULL, l_extendedprice numeric(15,2) NOT NULL,
 l_discount numeric(15,2) NOT NULL, l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL,
 l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL,
 l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL,
 l_comment varchar(44) NOT NULL"""

GENERATE = """
SELECT setseed(0.3);
INSERT INTO lineitem_heap
SELECT o.okey, p.partkey, 1 + ((p.partkey + (p.ln - 1) * 2500) %% {suppliers}),
       p.ln, p.qty, round(p.qty * (90000 + ((p.partkey / 10) %% 20001) + 100 * (p.partkey %% 1000)) / 100.0, 2),
       p.disc, p.tax,
       CASE WHEN p.ship + p.rcpt_off <= date '1995-06-17'
            THEN (ARRAY['R', 'A'])[1 + (random() < 0.5)::int] ELSE 'N' END,
       CASE WHEN p.ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
       p.ship, o.odate + 30 + (random() * 60)::int, p.ship + p.rcpt_off,
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + (random() * 3)::int],
       (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + (random() * 6)::int],
       left(md5(random()::text) || md5(random()::text), 10 + (random() * 33)::int)
  FROM (SELECT g * 4 - 3 AS okey, date '1992-01-01' + (random() * 2405)::int AS odate,
               1 + (random() * 6)::int AS nlines
          FROM generate_series(1, {orders}) g) o,
       LATERAL (SELECT ln, 1 + (random() * ({parts} - 1))::int AS partkey,
                       (1 + (random() * 49)::int)::numeric(15,2) AS qty,
                       round((random() * 10)::int / 100.0, 2) AS disc,
                       round((random() * 8)::int / 100.0, 2) AS tax,
                       o.odate + 1 + (random() * 120)::int AS ship,
                       1 + (random() * 29)::int AS rcpt_off
                  FROM generate_series(1, o.nlines) ln) p
"""

Q1 = """SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
 sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
 sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty,
 avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
 FROM {t} WHERE l_shipdate <= date '1998-12-01' - interval '90 day'
 GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"""

Q6 = """SELECT sum(l_extendedprice * l_discount) AS revenue FROM {t}
 WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1 year'
   AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24"""


def generate_sql(sf):
    """The load of lineitem_heap at scale factor SF (fixed seed); W7 uses it too."""
    return GENERATE.format(orders=int(1_500_000 * sf), parts=int(200_000 * sf),
                           suppliers=int(10_000 * sf)).replace("%%", "%")


# A column table's load goes straight into sealed blocks, all of it: the
# first quickstep.column_delta_rows rows of a command otherwise stay in the
# delta, and the merge that would move them is not built (src/column/README.md).
COLUMN_LOAD = "SET quickstep.column_delta_rows = 0;"


def load_sql(am, table, source):
    """INSERT … SELECT of SOURCE into TABLE (access method AM)."""
    return f"{COLUMN_LOAD if am == 'quickstep_column' else ''} INSERT INTO {table} SELECT * FROM {source}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", type=float, default=None)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    a = ap.parse_args()
    sf = a.scale or (0.1 if a.quick else 1.0)

    srv = qsbench.Server(a.pg, 55800 + int(a.pg), f"/tmp/quickstep-bench/w3-pg{a.pg}/data")
    srv.start()
    try:
        srv.sql(f"CREATE TABLE lineitem_heap ({COLUMNS}) USING heap")
        srv.sql(generate_sql(sf))
        systems = [("heap", "lineitem_heap")]
        for am in srv.table_ams()[1:]:
            try:
                srv.sql(f"CREATE TABLE lineitem_{am} ({COLUMNS}) USING {am}")
                srv.sql(load_sql(am, f"lineitem_{am}", "lineitem_heap"))
                systems.append((am, f"lineitem_{am}"))
            except Exception as e:  # reported, not hidden
                print(f"w3: {am} skipped: {getattr(e, 'stderr', e)}", file=sys.stderr)
        srv.sql("VACUUM ANALYZE")
        nrows = int(srv.sql("SELECT count(*) FROM lineitem_heap"))
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), scale_factor=sf, rows=nrows,
                    settings=qsbench.SERVER_CONF.replace("\n", "; ").strip("; "))
        # Every system must give heap's answer: a benchmark of wrong results is no benchmark.
        answers = {}
        rows = []
        for qname, q in (("Q1", Q1), ("Q6", Q6)):
            base = None
            for am, t in systems:
                ans = srv.sql(q.format(t=t))
                answers.setdefault(qname, ans)
                if ans != answers[qname]:
                    raise SystemExit(f"w3: {am} answered {qname} differently from heap")
                med, lo, hi = srv.measure(q.format(t=t), runs=a.runs)
                base = base or med
                size = int(srv.sql(f"SELECT pg_table_size('{t}')"))
                pages = int(srv.sql(f"SELECT pg_relation_size('{t}') / current_setting('block_size')::int"))
                rows.append(dict(workload="W3", query=qname, system=am, plan=srv.scan_node(q.format(t=t)),
                                 runs=a.runs, median_ms=round(med, 2),
                                 min_ms=round(lo, 2), max_ms=round(hi, 2), speedup_vs_heap=round(base / med, 3),
                                 table_bytes=size, rows_per_page=round(nrows / max(pages, 1), 1), **meta))
                print(f"w3 {qname} {am:<14} {med:9.1f} ms [{lo:.1f}-{hi:.1f}] x{base / med:5.2f} "
                      f"size {size / 2**20:.1f} MiB, {rows[-1]['rows_per_page']} rows/page ({rows[-1]['plan']})")
        path = qsbench.write_csv("w3_tpch.csv", rows)
        plot(rows, path.replace(".csv", ".png"), meta)
        print(f"w3: wrote {path}")
    finally:
        srv.stop()


def plot(rows, png, meta):
    plt = qsbench.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.8))

    def short(system):
        return system.replace("quickstep_", "qs_")

    for ax, qname in zip(axes, ("Q1", "Q6")):
        pts = [r for r in rows if r["query"] == qname]
        xs = range(len(pts))
        ax.bar(xs, [r["median_ms"] for r in pts],
               yerr=[[r["median_ms"] - r["min_ms"] for r in pts], [r["max_ms"] - r["median_ms"] for r in pts]],
               capsize=4)
        ax.set_xticks(list(xs), [f"{short(r['system'])}\n×{r['speedup_vs_heap']}" for r in pts])
        ax.set_title(f"TPC-H {qname} (ms, median; bars min-max; ×: heap / system)")
    pts = [r for r in rows if r["query"] == "Q1"]
    axes[2].bar(range(len(pts)), [r["table_bytes"] / 2**20 for r in pts])
    axes[2].set_xticks(list(range(len(pts))),
                       [f"{short(r['system'])}\n×{r['table_bytes'] / pts[0]['table_bytes']:.2f} heap\n"
                        f"{r['rows_per_page']:.0f} rows/pg" for r in pts])
    axes[2].set_title("lineitem size (MiB, pg_table_size) — W7")
    fig.suptitle(f"W3 lineitem SF {meta['scale_factor']} ({meta['rows']:,} rows), PostgreSQL {meta['server']}, "
                 f"commit {meta['commit']}")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
