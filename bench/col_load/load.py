"""Bulk load of column tables (issue 12, README section 6 of src/column).

W1 Narrow-U (10 int4 columns, values uniform in 1..1e8, fixed seed),
10M rows (1M with --quick), written once to a COPY file; then, in turns
(heap, column, heap, column, ...), TRUNCATE and COPY the file into a heap
table and into a column table.  A figure is the wall time of the COPY
statement as psql's \\timing reports it (the server did every row: parse,
form, encode, write the runs and their WAL), median of --runs with min and
max, and the ratio column / heap of each pair.  Sizes after the load, and
the column table's state from quickstep.column_stats (rows in the delta and
in blocks, sealed blocks).

The column table is `USING quickstep_column` with the extension's defaults
(quickstep.rows_per_block 150,000; the first quickstep.column_delta_rows =
1,000 rows of each COPY stay in the delta, which is what a user gets).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "w1"))
import qsbench  # noqa: E402
import w1  # noqa: E402  (W1's Narrow-U generator and seed)


def copy_ms(srv, table, path):
    return srv.timed(f"TRUNCATE {table}", "CHECKPOINT", f"COPY {table} FROM '{path}'")[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    a = ap.parse_args()
    rows = 1_000_000 if a.quick else 10_000_000
    srv = qsbench.Server(a.pg, 55700 + int(a.pg), f"/tmp/quickstep-bench/colload-pg{a.pg}/data")
    srv.start()
    try:
        path = os.path.join(os.path.dirname(srv.datadir), "narrow_u.copy")
        _, ctype, gen, _ = w1.TABLES["Narrow-U"]
        cols = w1.column_defs(ctype)
        srv.sql(f"""
            CREATE TABLE t_heap ({cols}) USING heap;
            CREATE TABLE t_col ({cols}) USING quickstep_column;
            CREATE TABLE gen ({cols});""")
        srv.sql(w1.generate_sql("gen", gen, rows))
        srv.sql(f"COPY gen TO '{path}'")
        srv.sql("DROP TABLE gen")
        heap, col, ratio = [], [], []
        copy_ms(srv, "t_heap", path)            # warm-up, both
        copy_ms(srv, "t_col", path)
        for _ in range(a.runs):
            h = copy_ms(srv, "t_heap", path)
            c = copy_ms(srv, "t_col", path)
            heap.append(h)
            col.append(c)
            ratio.append(c / h)
        check = srv.sql("SELECT (SELECT count(*) FROM t_col) = (SELECT count(*) FROM t_heap) AND "
                        "(SELECT sum(c1::int8) + sum(c10::int8) FROM t_col) = "
                        "(SELECT sum(c1::int8) + sum(c10::int8) FROM t_heap) AND "
                        "quickstep.check_table('t_col') = (SELECT count(*) FROM t_col)")
        if check != "t":
            raise SystemExit("col_load: the column table does not hold the heap table's rows")
        hsize = int(srv.sql("SELECT pg_relation_size('t_heap')"))
        csize = int(srv.sql("SELECT pg_relation_size('t_col')"))
        delta, main_rows, blocks, sealed = srv.sql(
            "SELECT delta_rows, main_rows, blocks, sealed_blocks FROM quickstep.column_stats "
            "WHERE relid = 't_col'::regclass").split("|")
        common = {"server": srv.version_string(), "commit": qsbench.commit(), "rows": rows,
                  "runs": a.runs, "settings": qsbench.SERVER_CONF.replace("\n", "; ").strip("; ")}
        out = []
        for name, t, size in (("heap", heap, hsize), ("column", col, csize)):
            out.append(dict(common, system=name, copy_ms_median=round(statistics.median(t), 1),
                            copy_ms_min=round(min(t), 1), copy_ms_max=round(max(t), 1),
                            ratio_to_heap_median=round(statistics.median(ratio), 3) if name == "column" else 1.0,
                            table_bytes=size, bytes_per_row=round(size / rows, 2),
                            delta_rows=delta if name == "column" else "",
                            main_rows=main_rows if name == "column" else "",
                            blocks=blocks if name == "column" else "",
                            sealed_blocks=sealed if name == "column" else ""))
        path_csv = qsbench.write_csv("col_load.csv", out)
        print(f"col_load: {path_csv}")
        for r in out:
            print(f"  {r['system']:7s} COPY {r['copy_ms_median']:9.1f} ms (min {r['copy_ms_min']}, max "
                  f"{r['copy_ms_max']}), x heap {r['ratio_to_heap_median']}, {r['table_bytes'] / 2**20:.1f} MiB"
                  + (f", {delta} delta rows, {main_rows} rows in {sealed}/{blocks} sealed blocks"
                     if r["system"] == "column" else ""))
        plt = qsbench.pyplot()
        fig, axes = plt.subplots(1, 2, figsize=(8, 3.6))
        names = [r["system"] for r in out]
        axes[0].bar(names, [r["copy_ms_median"] / 1000 for r in out],
                    yerr=[[(r["copy_ms_median"] - r["copy_ms_min"]) / 1000 for r in out],
                          [(r["copy_ms_max"] - r["copy_ms_median"]) / 1000 for r in out]])
        axes[0].set_ylabel("COPY seconds (median, min-max)")
        axes[0].set_title(f"COPY {rows:,} Narrow-U rows: column x{out[1]['ratio_to_heap_median']} heap")
        axes[1].bar(names, [r["table_bytes"] / 2**20 for r in out])
        axes[1].set_ylabel("MiB")
        axes[1].set_title("table size after the load")
        fig.suptitle(f"col_load, PostgreSQL {common['server']}, commit {common['commit']}", fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(qsbench.RESULTS, "col_load.png"), dpi=90)
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
