"""W3, all 22 TPC-H queries (BENCH.md W3; issue 13's target), heap against
quickstep_column (--ams adds other access methods).

Data and queries come from the official TPC-H generator as DuckDB ships it
(`duckdb` and `duckdb-extension-tpch` from PyPI, installed by this script
into $QS_OPT/duckdb-<version> when missing): `CALL dbgen(sf => SF)`, each
table written to CSV and loaded with COPY into each schema before its
indexes are built (column tables straight into sealed blocks, sorted on
their sort keys).  `tpch_queries()` gives the 22 queries, which run unchanged
on PostgreSQL.

Each system is a schema `s_<am>` holding the 8 tables in that access method,
with the primary keys and the join indexes a DBA builds (below) and, for
column tables, the sort keys a user would pick: lineitem on l_shipdate,
orders on o_orderdate (the date ranges of Q1, Q3–Q7, Q10, Q12, Q14, Q15,
Q20).  VACUUM ANALYZE after the load.

Per query and system: the answer (psql's unaligned output) must equal
heap's, or equal it as a multiset of lines when LIMIT cuts through ties —
anything else stops the run; the time is the server's execution time
(EXPLAIN ANALYZE, TIMING OFF), the median of --runs runs after a warm-up.
Reported: per query heap_ms / system_ms, their geometric mean, and the
slowest ratio.  Queries that run past --timeout seconds are reported as
timeouts (and count as failed targets).

  eval "$(bash scripts/devpg.sh NAME)"; bash scripts/build.sh 15
  python3 bench/w3/tpch22.py [--scale 1] [--runs 3] [--pg 15] [--ams heap,quickstep_column]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

DUCKDB_VERSION = "1.5.5"

DDL = {
    "region": "r_regionkey int4 NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152)",
    "nation": "n_nationkey int4 NOT NULL, n_name char(25) NOT NULL, n_regionkey int4 NOT NULL, "
              "n_comment varchar(152)",
    "part": "p_partkey int4 NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL, "
            "p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size int4 NOT NULL, "
            "p_container char(10) NOT NULL, p_retailprice numeric(15,2) NOT NULL, p_comment varchar(23) NOT NULL",
    "supplier": "s_suppkey int4 NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL, "
                "s_nationkey int4 NOT NULL, s_phone char(15) NOT NULL, s_acctbal numeric(15,2) NOT NULL, "
                "s_comment varchar(101) NOT NULL",
    "partsupp": "ps_partkey int4 NOT NULL, ps_suppkey int4 NOT NULL, ps_availqty int4 NOT NULL, "
                "ps_supplycost numeric(15,2) NOT NULL, ps_comment varchar(199) NOT NULL",
    "customer": "c_custkey int4 NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL, "
                "c_nationkey int4 NOT NULL, c_phone char(15) NOT NULL, c_acctbal numeric(15,2) NOT NULL, "
                "c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL",
    "orders": "o_orderkey int8 NOT NULL, o_custkey int4 NOT NULL, o_orderstatus char(1) NOT NULL, "
              "o_totalprice numeric(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, "
              "o_clerk char(15) NOT NULL, o_shippriority int4 NOT NULL, o_comment varchar(79) NOT NULL",
    "lineitem": "l_orderkey int8 NOT NULL, l_partkey int4 NOT NULL, l_suppkey int4 NOT NULL, "
                "l_linenumber int4 NOT NULL, l_quantity numeric(15,2) NOT NULL, "
                "l_extendedprice numeric(15,2) NOT NULL, l_discount numeric(15,2) NOT NULL, "
                "l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL, "
                "l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL, "
                "l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL",
}
# primary keys and the foreign-key join indexes a DBA builds
INDEXES = [
    "ALTER TABLE region ADD PRIMARY KEY (r_regionkey)",
    "ALTER TABLE nation ADD PRIMARY KEY (n_nationkey)",
    "ALTER TABLE part ADD PRIMARY KEY (p_partkey)",
    "ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey)",
    "ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey)",
    "ALTER TABLE customer ADD PRIMARY KEY (c_custkey)",
    "ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)",
    "ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)",
    "CREATE INDEX ON nation (n_regionkey)",
    "CREATE INDEX ON supplier (s_nationkey)",
    "CREATE INDEX ON customer (c_nationkey)",
    "CREATE INDEX ON partsupp (ps_suppkey)",
    "CREATE INDEX ON orders (o_custkey)",
    "CREATE INDEX ON lineitem (l_partkey, l_suppkey)",
]
SORT_KEYS = {"lineitem": "l_shipdate", "orders": "o_orderdate"}


def duckdb_module():
    """Import duckdb with its tpch extension, installing both when missing."""
    opt = os.environ.get("QS_OPT", "/opt/quickstep")
    target = os.path.join(opt, f"duckdb-{DUCKDB_VERSION}")
    if not os.path.isdir(os.path.join(target, "duckdb_extension_tpch")):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", target,
                        f"duckdb=={DUCKDB_VERSION}", f"duckdb-extension-tpch=={DUCKDB_VERSION}"], check=True)
    sys.path.insert(0, target)
    import duckdb  # noqa: E402
    ext = os.path.join(target, "duckdb_extension_tpch", "extensions", f"v{DUCKDB_VERSION}",
                       "tpch.duckdb_extension")
    con = duckdb.connect()
    con.execute(f"LOAD '{ext}'")
    return con


def generate(con, sf, outdir):
    """dbgen at SF into CSV files (one per table) in OUTDIR; the 22 queries."""
    con.execute(f"CALL dbgen(sf => {sf})")
    for t in DDL:
        con.execute(f"COPY {t} TO '{os.path.join(outdir, t + '.csv')}' (FORMAT csv, DELIMITER '|', HEADER false)")
    return [(int(n), q.strip().rstrip(";")) for n, q in
            con.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY query_nr").fetchall()]


def same_answer(a, b):
    return a == b or sorted(a.splitlines()) == sorted(b.splitlines())


def load(srv, ams, csvdir):
    for am in ams:
        s = "s_" + am
        srv.sql(f"CREATE SCHEMA {s}")
        for t, cols in DDL.items():
            opts = f" WITH (quickstep.sort_key = '{SORT_KEYS[t]}')" if am == "quickstep_column" and t in SORT_KEYS \
                else ""
            srv.sql(f"CREATE TABLE {s}.{t} ({cols}) USING {am}{opts}")
            # COPY, as a DBA loads, before the indexes: a column table's
            # blocks are then sorted on its sort key (src/column/load.c)
            subprocess.run([f"{srv.bindir}/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-c",
                            f"\\copy {s}.{t} FROM '{os.path.join(csvdir, t + '.csv')}' "
                            "(FORMAT csv, DELIMITER '|')"], check=True, env=srv.env)
        for ddl in INDEXES:
            srv.sql(f"SET search_path = {s}; {ddl}")
    srv.sql("VACUUM ANALYZE")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--quick", action="store_true", help="scale 0.1")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per query run")
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    ap.add_argument("--ams", default="heap,quickstep_column")
    ap.add_argument("--load-only", action="store_true",
                    help="load, then leave the server running for a look (prints its port)")
    ap.add_argument("--reuse", action="store_true",
                    help="run on the cluster an earlier --load-only left at the same path (same --scale "
                         "and --ams): start it as it is, load nothing")
    a = ap.parse_args()
    sf = 0.1 if a.quick else a.scale
    ams = a.ams.split(",")
    if ams[0] != "heap":
        ap.error("--ams must start with heap, the baseline")

    con = duckdb_module()
    srv = qsbench.Server(a.pg, 55900 + int(a.pg), f"/tmp/quickstep-bench/w3full-pg{a.pg}/data")
    try:
        if a.reuse:
            srv.start_existing()
            queries = [(int(n), q.strip().rstrip(";")) for n, q in
                       con.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY query_nr").fetchall()]
        else:
            srv.start()
            with tempfile.TemporaryDirectory() as csvdir:
                queries = generate(con, sf, csvdir)
                load(srv, ams, csvdir)
        if a.load_only:
            print(f"w3-22: loaded; the server runs on port {srv.port} (schemas s_<am>), stop it with "
                  f"scripts/cluster.sh stop {a.pg} {srv.datadir}")
            return
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), scale_factor=sf,
                    settings=qsbench.SERVER_CONF.replace("\n", "; ").strip("; "))
        sizes = {am: int(srv.sql(f"SELECT sum(pg_table_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                                 f"ON n.oid = c.relnamespace WHERE n.nspname = 's_{am}' AND c.relkind = 'r'"))
                 for am in ams}
        rows = []
        for n, q in queries:
            base = None
            answer = None
            for am in ams:
                setup = f"SET search_path = s_{am}; SET statement_timeout = '{a.timeout}s';"
                try:
                    ans = srv.sql(f"{setup} {q}")
                except subprocess.CalledProcessError as e:
                    if "statement timeout" not in e.stderr:
                        raise
                    rows.append(dict(workload="W3-22", query=f"Q{n}", system=am, answer="timeout",
                                     runs=0, median_ms="", min_ms="", max_ms="", speedup_vs_heap="",
                                     plan="", schema_bytes=sizes[am], **meta))
                    print(f"w3-22 Q{n:<2} {am:<18} timeout after {a.timeout} s", flush=True)
                    continue
                if answer is None:
                    answer = ans
                    verdict = "baseline"
                elif ans == answer:
                    verdict = "equal"
                elif same_answer(ans, answer):
                    verdict = "equal as a multiset (LIMIT through ties)"
                else:
                    raise SystemExit(f"w3-22: {am} answered Q{n} differently from heap")
                med, lo, hi = srv.measure(q, setup, runs=a.runs)
                base = base or med
                rows.append(dict(workload="W3-22", query=f"Q{n}", system=am, answer=verdict, runs=a.runs,
                                 median_ms=round(med, 1), min_ms=round(lo, 1), max_ms=round(hi, 1),
                                 speedup_vs_heap=round(base / med, 3), plan=srv.scan_node(q, setup),
                                 schema_bytes=sizes[am], **meta))
                print(f"w3-22 Q{n:<2} {am:<18} {med:10.1f} ms [{lo:.1f}-{hi:.1f}] x{base / med:6.2f} "
                      f"({verdict}; {rows[-1]['plan']})", flush=True)
        for am in ams[1:]:
            r = [x["speedup_vs_heap"] for x in rows if x["system"] == am and x["speedup_vs_heap"] != ""]
            if r:
                gm = math.exp(sum(math.log(x) for x in r) / len(r))
                print(f"w3-22 {am}: geometric mean x{gm:.3f} over {len(r)} queries, slowest x{min(r):.3f}, "
                      f"fastest x{max(r):.3f}; size {sizes[am] / sizes['heap']:.3f}x heap's")
        path = qsbench.write_csv("w3_tpch22.csv", rows)
        plot(rows, path.replace(".csv", ".png"), meta, ams)
        print(f"w3-22: wrote {path}")
    finally:
        if not a.load_only:
            srv.stop()


def plot(rows, png, meta, ams):
    plt = qsbench.pyplot()
    fig, ax = plt.subplots(figsize=(16, 4.8))
    queries = list(dict.fromkeys(r["query"] for r in rows))
    width = 0.8 / max(len(ams) - 1, 1)
    for i, am in enumerate(ams[1:]):
        ys = []
        for qn in queries:
            r = [x for x in rows if x["query"] == qn and x["system"] == am]
            ys.append(r[0]["speedup_vs_heap"] if r and r[0]["speedup_vs_heap"] != "" else 0)
        ax.bar([j + i * width for j in range(len(queries))], ys, width, label=am)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.8, color="red", linewidth=0.8, linestyle="--")
    ax.set_yscale("log")
    ax.set_xticks(list(range(len(queries))), queries)
    ax.set_ylabel("heap time / system time (log; 0 = timeout)")
    ax.legend()
    fig.suptitle(f"W3 TPC-H SF {meta['scale_factor']}, 22 queries, PostgreSQL {meta['server']}, "
                 f"commit {meta['commit']} (median of runs)")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
