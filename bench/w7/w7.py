"""W7 (BENCH.md; papers 000 section 4.5, 002): the size of every W1/W3 table per layout.

Tables, generated once into heap with the generators and seeds of W1 and W3
(imported from bench/w1/w1.py and bench/w3/w3.py, not copied):
  Narrow-U   10 int4, uniform in 1..1e8                 10M rows (--quick 1M)
  Narrow-E   10 int4, column i uniform in 1..2^(2.7 i)  10M rows (--quick 1M)
  Strings    10 text of 20 hex characters               2M rows (--quick 200k)
  lineitem   W3's TPC-H-like lineitem                   SF 1, ~6M rows (--quick SF 0.1)
then copied by INSERT … SELECT into one table per quickstep table access
method on the server (quickstep_nsm, _pax, _hpl, _column), plus
"quickstep_column sorted": CREATE TABLE AS with quickstep.sort_key (c1;
lineitem: l_shipdate), whose blocks are sorted at load.  No index on any
table; VACUUM ANALYZE before measuring; each copy's row count is checked.

Column tables are loaded with quickstep.column_delta_rows = 0, so that the
whole load goes straight into sealed blocks, as a bulk load does (by default
a command's first 1,000 rows stay in the delta).  "quickstep_column via
delta" is the other way rows arrive: INSERTs of DELTA_BATCH rows at a time
into the row delta, each followed by quickstep.merge() as the merge worker
does at its default threshold, then quickstep.seal() and VACUUM; "... +
VACUUM" runs VACUUM after every merge too (what autovacuum does now and
then).  Their sizes include the pages merges emptied: delta pages whose rows
moved, and runs of the open block's earlier versions (each merge writes a
new version at the end of the file; VACUUM gives the old one's pages to the
delta).  They are free for later inserts but stay in the file unless they
are at its end.  The CSV says, per
column table, the rows left in the delta and the sealed blocks:
"merged+sealed" = no delta row, every block sealed.

Figures per table and layout: pg_relation_size (main fork) and
pg_total_relation_size (every fork and TOAST; there is no index), each as a
ratio to heap's in the same run, bytes per row, rows per page (rows / pages
of the main fork).  Targets of issue 12, printed with PASS/MISS next to the
measured ratio: quickstep_column merged and sealed at most 0.5x heap's bytes
on Narrow-U and 0.4x on Narrow-E (judged on pg_total_relation_size, the
whole table; the main-fork ratio is beside it).  Sizes are deterministic:
no repeated runs.

Writes bench/results/w7_sizes.csv, w7_sizes.png and w7_column_encodings.csv
(per column table and column: encodings chosen, blocks, stripe and
dictionary bytes, from quickstep.blocks()).
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
sys.path.insert(0, os.path.join(here, "..", "w1"))
sys.path.insert(0, os.path.join(here, "..", "w3"))
import qsbench  # noqa: E402
import w1  # noqa: E402
import w3  # noqa: E402

# issue 12, "Done when": quickstep_column merged and sealed, at most this
# fraction of heap's bytes
TARGETS = {"Narrow-U": 0.5, "Narrow-E": 0.4}
TARGET_SYSTEM = "quickstep_column"
SORTED = "quickstep_column sorted"
VIA_DELTA = "quickstep_column via delta"
VIA_DELTA_VAC = "quickstep_column via delta + VACUUM"
DELTA_BATCH = 100_000   # quickstep.merge_threshold's default
SORT_KEYS = {"lineitem": "l_shipdate"}  # others: c1


def tables(quick, scale):
    """(name, stem, CREATE TABLE column list, SQL that loads <stem>_heap, rows)"""
    out = []
    for name in ("Narrow-U", "Narrow-E", "Strings"):
        stem, ctype, gen, full = w1.TABLES[name]
        rows = int(full / (10 if quick else 1) * scale)
        out.append((name, stem, w1.column_defs(ctype), w1.generate_sql(f"{stem}_heap", gen, rows)))
    sf = (0.1 if quick else 1.0) * scale
    out.append(("lineitem", "lineitem", w3.COLUMNS, w3.generate_sql(sf)))
    return out, sf


def column_state(srv, table):
    r = srv.sql(f"SELECT delta_rows, main_rows, blocks, sealed_blocks, bytes, raw_bytes "
                f"FROM quickstep.column_stats WHERE relid = '{table}'::regclass").split("|")
    delta, main, blocks, sealed, nbytes, raw = (int(x) for x in r)
    state = "merged+sealed" if delta == 0 and blocks == sealed else \
        f"{delta} delta rows, {blocks - sealed} open blocks"
    return dict(delta_rows=delta, main_rows=main, blocks=blocks, sealed_blocks=sealed,
                block_bytes=nbytes, raw_bytes=raw, state=state)


def encodings(srv, table):
    q = f"""SELECT column_name, string_agg(DISTINCT encoding, '+' ORDER BY encoding), count(*),
                   sum(stripe_bytes), sum(dictionary_bytes)
              FROM quickstep.blocks('{table}') WITH ORDINALITY b(block_id, state, rows, deleted_rows, bytes,
                   column_name, encoding, min, max, dictionary_bytes, stripe_bytes, sorted, n)
             GROUP BY column_name ORDER BY min(n)"""
    out = []
    for line in srv.sql(q).splitlines():
        col, enc, nblocks, stripe, dic = line.split("|")
        out.append(dict(column=col, encodings=enc, blocks=int(nblocks), stripe_bytes=int(stripe),
                        dictionary_bytes=int(dic or 0)))
    return out


def load_via_delta(srv, stem, cols, vacuum):
    """Rows through the delta, DELTA_BATCH per INSERT, a merge (and VACUUM) after each, then seal."""
    t = f"{stem}_column_via_delta{'_vac' if vacuum else ''}"
    srv.sql(f"CREATE TABLE {t} ({cols}) USING quickstep_column")
    pages = int(srv.sql(f"SELECT pg_relation_size('{stem}_heap') / current_setting('block_size')::int"))
    rows = int(srv.sql(f"SELECT count(*) FROM {stem}_heap"))
    step = max(1, pages * DELTA_BATCH // max(rows, 1))
    for p in range(0, pages, step):
        srv.sql(f"SET quickstep.column_delta_rows = {DELTA_BATCH * 2}; INSERT INTO {t} SELECT * FROM {stem}_heap "
                f"WHERE ctid >= '({p},0)' AND ctid < '({p + step},0)'")
        while int(srv.sql(f"SELECT quickstep.merge('{t}')")) > 0:
            pass
        if vacuum:
            srv.sql(f"VACUUM {t}")
    srv.sql(f"SELECT quickstep.seal('{t}')")
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--pg", default=os.environ.get("BENCH_PG", "15"))
    ap.add_argument("--tables", default="Narrow-U,Narrow-E,Strings,lineitem")
    a = ap.parse_args()
    wanted = a.tables.split(",")
    specs, sf = tables(a.quick, a.scale)

    srv = qsbench.Server(a.pg, 55900 + int(a.pg), f"/tmp/quickstep-bench/w7-pg{a.pg}/data")
    srv.start()
    try:
        ams = srv.table_ams()[1:]
        meta = dict(server=srv.version_string(), commit=qsbench.commit(), quick=a.quick, scale=a.scale,
                    settings=qsbench.SERVER_CONF.replace("\n", "; ").strip("; "))
        rows_out, enc_out = [], []
        for name, stem, cols, gen_sql in specs:
            if name not in wanted:
                continue
            srv.sql(f"CREATE TABLE {stem}_heap ({cols}) USING heap")
            srv.sql(gen_sql)
            systems = [("heap", f"{stem}_heap")]
            for am in ams:
                t = f"{stem}_{am}"
                try:
                    srv.sql(f"CREATE TABLE {t} ({cols}) USING {am}")
                    srv.sql(w3.load_sql(am, t, f"{stem}_heap"))
                    systems.append((am, t))
                except Exception as e:  # an AM that cannot load the table is reported, not hidden
                    print(f"w7: {name} {am} skipped: {getattr(e, 'stderr', e)}", file=sys.stderr)
            if "quickstep_column" in ams:
                t = f"{stem}_column_sorted"
                key = SORT_KEYS.get(stem, "c1")
                srv.sql(f"{w3.COLUMN_LOAD} CREATE TABLE {t} USING quickstep_column "
                        f"WITH (quickstep.sort_key = '{key}') AS SELECT * FROM {stem}_heap")
                systems.append((SORTED, t))
                systems.append((VIA_DELTA, load_via_delta(srv, stem, cols, False)))
                systems.append((VIA_DELTA_VAC, load_via_delta(srv, stem, cols, True)))
            srv.sql("VACUUM ANALYZE")
            nrows = int(srv.sql(f"SELECT count(*) FROM {stem}_heap"))
            base = None
            for system, t in systems:
                n = int(srv.sql(f"SELECT count(*) FROM {t}"))
                if n != nrows:
                    raise SystemExit(f"w7: {t} holds {n} rows, heap {nrows}")
                rel, total, pages = (int(x) for x in srv.sql(
                    f"SELECT pg_relation_size('{t}'), pg_total_relation_size('{t}'), "
                    f"pg_relation_size('{t}') / current_setting('block_size')::int").split("|"))
                base = base or (rel, total)
                r = dict(workload="W7", table=name, system=system, rows=nrows, relation_bytes=rel,
                         total_bytes=total, ratio_relation_to_heap=round(rel / base[0], 4),
                         ratio_total_to_heap=round(total / base[1], 4), bytes_per_row=round(total / nrows, 2),
                         rows_per_page=round(nrows / max(pages, 1), 1), delta_rows="", blocks="",
                         sealed_blocks="", raw_bytes="", state="", target_ratio="", verdict="")
                if system.startswith("quickstep_column"):
                    st = column_state(srv, t)
                    r.update({k: st[k] for k in ("delta_rows", "blocks", "sealed_blocks", "raw_bytes", "state")})
                    for e in encodings(srv, t):
                        enc_out.append(dict(table=name, system=system, rows=nrows, **e, server=meta["server"],
                                            commit=meta["commit"]))
                if system == TARGET_SYSTEM and name in TARGETS:
                    r["target_ratio"] = TARGETS[name]
                    ok = r["ratio_total_to_heap"] <= TARGETS[name] and r["state"] == "merged+sealed"
                    r["verdict"] = "PASS" if ok else "MISS"
                r.update(meta)
                if name == "lineitem":
                    r["scale_factor"] = sf
                rows_out.append(r)
                tgt = f"   target <= {r['target_ratio']}x: {r['verdict']}" if r["verdict"] else ""
                print(f"w7 {name:<9} {system:<24} {total / 2**20:9.1f} MiB total ({rel / 2**20:9.1f} main)"
                      f"  x{r['ratio_total_to_heap']:.3f} (main x{r['ratio_relation_to_heap']:.3f})"
                      f"  {r['bytes_per_row']:7.2f} B/row {r['rows_per_page']:7.1f} rows/page"
                      f"{'  ' + r['state'] if r['state'] else ''}{tgt}", flush=True)
            for _, t in systems:        # keep the disk footprint to one table's copies
                srv.sql(f"DROP TABLE {t}")
        for r in rows_out:              # one header for all rows
            r.setdefault("scale_factor", "")
        path = qsbench.write_csv("w7_sizes.csv", rows_out)
        if enc_out:
            qsbench.write_csv("w7_column_encodings.csv", enc_out)
        plot(rows_out, path.replace(".csv", ".png"), meta)
        print(f"w7: wrote {path}")
    finally:
        srv.stop()


def tick(rows, name):
    label = f"{name}\n{next(r['rows'] for r in rows if r['table'] == name):,} rows"
    verdict = [r["verdict"] for r in rows if r["table"] == name and r["system"] == TARGET_SYSTEM]
    if name in TARGETS:
        label += f"\ncolumn <= {TARGETS[name]}x: {verdict[0] if verdict else '?'}"
    return label


def plot(rows, png, meta):
    plt = qsbench.pyplot()
    names = list(dict.fromkeys(r["table"] for r in rows))
    order = ["heap", "quickstep_nsm", "quickstep_pax", "quickstep_hpl", TARGET_SYSTEM, SORTED, VIA_DELTA, VIA_DELTA_VAC]
    systems = sorted(dict.fromkeys(r["system"] for r in rows),
                     key=lambda s: order.index(s) if s in order else len(order))
    fig, axes = plt.subplots(1, 2, figsize=(16, 5.6))
    width = 0.8 / len(systems)
    for j, s in enumerate(systems):
        for ax, key in ((axes[0], "ratio_total_to_heap"), (axes[1], "rows_per_page")):
            xs, ys = [], []
            for i, n in enumerate(names):
                pts = [r for r in rows if r["table"] == n and r["system"] == s]
                if pts:
                    xs.append(i + (j - (len(systems) - 1) / 2) * width)
                    ys.append(pts[0][key])
            bars = ax.bar(xs, ys, width, label=s)
            ax.bar_label(bars, [f"{y:.3f}" if key.startswith("ratio") else f"{y:.0f}" for y in ys],
                         fontsize=7, rotation=90, padding=2)
    for i, n in enumerate(names):
        if n in TARGETS:
            axes[0].hlines(TARGETS[n], i - 0.45, i + 0.45, colors="red", linestyles="dashed")
    for ax, title in ((axes[0], "table bytes / heap's (pg_total_relation_size; no index)"),
                      (axes[1], "rows per 8 kB page of the main fork")):
        ax.set_xticks(range(len(names)), [tick(rows, n) for n in names])
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
        ax.margins(y=0.15)
    axes[0].axhline(1.0, color="grey", linewidth=0.8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(systems), fontsize=9)
    fig.suptitle(f"W7 table sizes per layout, PostgreSQL {meta['server']}, commit {meta['commit']}"
                 f"{' (--quick)' if meta['quick'] else ''}; column tables merged+sealed (loaded straight into "
                 f"sealed blocks; 'via delta': {DELTA_BATCH:,}-row INSERTs, each merged)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
