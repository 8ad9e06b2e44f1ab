"""W5, merge cost part (issue 14, paper 004 section 7, its update-cost table)
through the SQL path.

For each value width (4 bytes: int4, 8: int8, 16: uuid), each share of
distinct values (1 % and 100 % of the rows) and each delta size (0.5, 1, 2,
4, 8 % of main; --quick: 1 and 8 %): a column table of 4 value columns of
that type whose MAIN rows (10M; --quick 1M) are loaded straight into sealed
blocks (quickstep.column_delta_rows = 0), then

  * delta insert: INSERT ... SELECT of the delta's rows, all into the delta
    (quickstep.column_delta_rows above their count), one statement; the
    same INSERT into a heap table of the same columns is its baseline;
  * merge: SELECT quickstep.merge(t) in its own transaction (the rows are
    committed before it starts and nobody else runs, so it moves them all:
    the count it returns is checked).

Each is timed by psql's \\timing (wall time of the statement at the
server), converted to nanoseconds and cycles (at the clock /proc/cpuinfo
reports) per row per column.  Paper 004's table splits the merge into step 1
(delta dictionary) and step 2 (merge with main's dictionary, re-encode):
a merge into the table's open block (src/merge/README.md section 5) runs
both on its dictionary columns and re-encodes the others with the block's
rows, so the merge figure is collect + rewrite of the open block + write +
index + marks, all of it.  The linear vs naive comparison of step 2 is the
codec benchmark's (bench/codec, codec_merge.csv).

Then many small merges (small_merges: 40 merges of 2000 rows, --quick; 200
otherwise), as the worker makes them: the blocks they leave (one open block
per rows_per_block rows, where each merge wrote a block before) and the
cost per row and column of the first and last of them.

Main is reloaded for each (width, distinct) pair; within it the delta sizes
run smallest first and each merge adds its rows to main (at most 8 % more),
which a merge whose cost is bounded by the delta does not feel.
"""
import argparse
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import qsbench  # noqa: E402

TYPES = [(4, "int4"), (8, "int8"), (16, "uuid")]
NCOLS = 4


def value_expr(typ, domain, col, base):
    # row g + base of the table: an odd multiplier mod 2^31 is a bijection,
    # so with domain = every row the values are distinct, and with a smaller
    # domain each of its values comes back evenly; one multiplier per column
    x = f"((((g + {base})::int8 * {2654435761 + 2 * col}) % 2147483648) % {domain})"
    if typ == "uuid":
        return f"md5({x}::text)::uuid"
    return f"{x}::{typ}"


def cpu_ghz():
    with open("/proc/cpuinfo") as f:
        m = re.search(r"cpu MHz\s*:\s*([0-9.]+)", f.read())
    return float(m.group(1)) / 1000.0 if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--main-rows", type=int, default=None)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    a = ap.parse_args()
    main_rows = a.main_rows or (1_000_000 if a.quick else 10_000_000)
    fractions = [0.01, 0.08] if a.quick else [0.005, 0.01, 0.02, 0.04, 0.08]
    ghz = cpu_ghz()

    srv = qsbench.Server(a.pg, 55700 + int(a.pg), f"/tmp/quickstep-bench/w5c-pg{a.pg}/data")
    srv.start()
    rows = []
    try:
        srv.sql("ALTER SYSTEM SET quickstep.merge_workers = 0")   # only our merges
        srv.sql("SELECT pg_reload_conf()")
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), main_rows=main_rows,
                    columns=NCOLS, cpu_ghz=ghz,
                    settings=qsbench.SERVER_CONF.replace("\n", "; ").strip("; ") + "; quickstep.merge_workers = 0")
        for width, typ in TYPES:
            for distinct in (0.01, 1.0):
                total = int(main_rows * (1 + sum(fractions)))
                domain = max(int(total * distinct), 2)
                cols = ", ".join(f"c{i} {typ}" for i in range(NCOLS))
                vals = lambda base: ", ".join(value_expr(typ, domain, i, base) for i in range(NCOLS))  # noqa: E731
                srv.sql(f"DROP TABLE IF EXISTS w5c; CREATE TABLE w5c ({cols}) USING quickstep_column; "
                        f"DROP TABLE IF EXISTS w5h; CREATE TABLE w5h ({cols}) USING heap")
                srv.sql(f"SET quickstep.column_delta_rows = 0; "
                        f"INSERT INTO w5c SELECT {vals(0)} FROM generate_series(1, {main_rows}) g")
                base = main_rows
                srv.sql("VACUUM w5c")
                for f in fractions:
                    n = int(main_rows * f)
                    _, ins_ms = srv.timed(f"SET quickstep.column_delta_rows = {n + 1}",
                                      f"INSERT INTO w5c SELECT {vals(base)} FROM generate_series(1, {n}) g")
                    _, heap_ms = srv.timed(f"INSERT INTO w5h SELECT {vals(base)} FROM generate_series(1, {n}) g")
                    base += n
                    out, merge_ms = srv.timed("SELECT quickstep.merge('w5c')")
                    moved = int(out.split()[0])
                    per = n * NCOLS
                    row = dict(workload="W5-merge-cost", width_bytes=width, type=typ,
                               distinct_pct=distinct * 100, delta_pct=f * 100, delta_rows=n, moved=moved,
                               insert_ms=round(ins_ms, 1), heap_insert_ms=round(heap_ms, 1),
                               insert_ratio_to_heap=round(ins_ms / heap_ms, 2), merge_ms=round(merge_ms, 1),
                               insert_ns_per_row_col=round(ins_ms * 1e6 / per, 1),
                               merge_ns_per_row_col=round(merge_ms * 1e6 / per, 1),
                               insert_cycles_per_row_col=round(ins_ms * 1e6 / per * ghz, 1) if ghz else "",
                               merge_cycles_per_row_col=round(merge_ms * 1e6 / per * ghz, 1) if ghz else "",
                               step2="open block: linear dictionary merge (src/column/append.c)", **meta)
                    rows.append(row)
                    print(f"w5 cost {typ:<5} distinct {distinct * 100:5.1f}% delta {f * 100:4.1f}% "
                          f"({n} rows, moved {moved}): insert {row['insert_cycles_per_row_col']} "
                          f"({row['insert_ratio_to_heap']}x heap's) "
                          f"merge {row['merge_cycles_per_row_col']} cycles/row/col")
                    if moved != n:
                        print(f"w5 cost: the merge moved {moved} of {n} rows", file=sys.stderr)
        small = small_merges(srv, meta, ghz, 40 if a.quick else 200)
        print(f"w5: wrote {qsbench.write_csv('w5_small_merges.csv', small)}")
        path = qsbench.write_csv("w5_merge_cost.csv", rows)
        plot(rows, path.replace(".csv", ".png"), meta)
        print(f"w5: wrote {path}")
    finally:
        srv.stop()


def small_merges(srv, meta, ghz, rounds, n=2000):
    """Many small merges, as the worker makes them: `rounds` times n rows
    (4 int8 columns, one of them 50 distinct values, dictionary-encoded)
    inserted into the delta and merged.  Reports the blocks left and the
    merge cost per row and column of the first and the last merges (a merge
    into the open block rewrites the block: its cost grows with the block,
    bounded by rows_per_block)."""
    cols = "a int8, b int8, c int8, d text"
    srv.sql(f"DROP TABLE IF EXISTS w5s; CREATE TABLE w5s ({cols}) USING quickstep_column")
    times = []
    for r in range(rounds):
        lo = r * n + 1
        srv.sql(f"SET quickstep.column_delta_rows = {n + 1}; "
                f"INSERT INTO w5s SELECT g, g % 1000, g * 7, 'v' || g % 50 "
                f"FROM generate_series({lo}, {lo + n - 1}) g")
        out, ms = srv.timed("SELECT quickstep.merge('w5s')")
        if int(out.split()[0]) != n:
            print(f"w5 small merges: round {r} moved {out.split()[0]} of {n} rows", file=sys.stderr)
        times.append(ms)
    blocks = int(srv.sql("SELECT count(DISTINCT block_id) FROM quickstep.blocks('w5s')").split()[0])
    out = []
    for label, part in (("first 5", times[:5]), ("last 5", times[-5:]), ("all", times)):
        ms = statistics.median(part)
        ns = ms * 1e6 / (n * NCOLS)
        out.append(dict(workload="W5-small-merges", type="int8/text", delta_rows=n, moved=n,
                        merges=rounds, blocks_after=blocks, which=label, merge_ms=round(ms, 2),
                        merge_ns_per_row_col=round(ns, 1),
                        merge_cycles_per_row_col=round(ns * ghz, 1) if ghz else "", **meta))
        print(f"w5 small merges: {rounds} merges of {n} rows -> {blocks} blocks; "
              f"{label}: median {ms:.1f} ms, {out[-1]['merge_cycles_per_row_col']} cycles/row/col")
    return out


def plot(rows, png, meta):
    plt = qsbench.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    for ax, key, title in ((axes[0], "insert_cycles_per_row_col", "delta insert (dashed: heap's insert, same rows)"),
                           (axes[1], "merge_cycles_per_row_col", "merge (all steps)")):
        for typ in sorted({r["type"] for r in rows}):
            for d in sorted({r["distinct_pct"] for r in rows}):
                pts = [r for r in rows if r["type"] == typ and r["distinct_pct"] == d]
                ax.plot([p["delta_pct"] for p in pts], [p[key] for p in pts], marker="o",
                        label=f"{typ}, {d:g}% distinct")
                if key == "insert_cycles_per_row_col" and d == 1.0:
                    ax.plot([p["delta_pct"] for p in pts],
                            [p[key] / p["insert_ratio_to_heap"] for p in pts], linestyle="--",
                            marker="x", label=f"heap insert, {typ}")
        ax.set_xlabel("delta, % of main")
        ax.set_ylabel("cycles per row per column")
        ax.set_title(title)
        ax.set_yscale("log")
        ax.legend(fontsize=8)
    fig.suptitle(f"W5 merge cost via SQL: main {meta['main_rows']} rows x {meta['columns']} columns, "
                 f"PostgreSQL {meta['server']}, commit {meta['commit']} (paper 004: 9.7 / 107.7 cycles)")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
