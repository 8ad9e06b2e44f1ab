#!/usr/bin/env python3
"""Plot the codec benchmark CSVs (bench/codec/run.sh) into PNGs."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "bench/results"


def rows(name):
    with open(f"{out}/{name}") as f:
        return list(csv.DictReader(f))


def err(med, lo, hi):
    return [[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]]


# predicates: ratio to memcpy bandwidth per width and variant
pred = rows("codec_pred.csv")
widths = sorted({int(r["width"]) for r in pred})
variants = list(dict.fromkeys(r["variant"] for r in pred))
fig, ax = plt.subplots(figsize=(9, 5))
bw = 0.8 / len(variants)
for i, v in enumerate(variants):
    rs = [r for r in pred if r["variant"] == v]
    rs.sort(key=lambda r: int(r["width"]))
    med = [float(r["ratio_med"]) for r in rs]
    lo = [float(r["ratio_min"]) for r in rs]
    hi = [float(r["ratio_max"]) for r in rs]
    xs = [widths.index(int(r["width"])) + (i - (len(variants) - 1) / 2) * bw for r in rs]
    ax.bar(xs, med, bw, yerr=err(med, lo, hi), capsize=3, label=v)
ax.axhline(0.5, color="k", ls="--", lw=1, label="target: 0.5 x memcpy")
ax.set_xticks(range(len(widths)))
ax.set_xticklabels([f"{w} bits" for w in widths])
memcpy = pred[0]["memcpy_gbps_med"]
ax.set_ylabel("bytes of codes scanned/s  /  memcpy bytes copied/s")
ax.set_title(f"Range predicate on codes, 1% selectivity (memcpy = {memcpy} GB/s; median, min-max of runs)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{out}/codec_pred.png", dpi=110)

# merge: ns per tuple, step 1 and step 2 (linear vs naive)
mg = rows("codec_merge.csv")
labels = [f"{r['value_bytes']}B {r['pct_distinct']}%\nND={int(r['n_delta'])//1000}K" for r in mg]
fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(11, 8))
x = range(len(mg))
w = 0.27
for off, key, lab in [(-w, "step1", "step 1 (1a+1b)"), (0, "step2_linear", "step 2 linear"),
                      (w, "step2_naive", "step 2 naive")]:
    med = [float(r[f"{key}_ns_med"]) for r in mg]
    lo = [float(r[f"{key}_ns_min"]) for r in mg]
    hi = [float(r[f"{key}_ns_max"]) for r in mg]
    ax1.bar([i + off for i in x], med, w, yerr=err(med, lo, hi), capsize=2, label=lab)
ax1.set_yscale("log")
ax1.set_ylabel("ns per tuple (N_M + N_D)")
ax1.set_xticks(list(x))
ax1.set_xticklabels(labels, fontsize=7)
ax1.legend(fontsize=8)
ax1.set_title(f"Delta merge, N_M = {int(mg[0]['n_main']):,} (median, min-max of runs)")
for off, key, lab in [(-w / 2, "speedup_step2", "step 2: naive / linear"),
                      (w / 2, "speedup_total", "step 1+2: naive / linear")]:
    med = [float(r[f"{key}_med"]) for r in mg]
    lo = [float(r[f"{key}_min"]) for r in mg]
    hi = [float(r[f"{key}_max"]) for r in mg]
    ax2.bar([i + off for i in x], med, w, yerr=err(med, lo, hi), capsize=2, label=lab)
ax2.axhline(5, color="k", ls="--", lw=1, label="target 5x")
ax2.set_ylabel("speed-up of linear over naive (x)")
ax2.set_xticks(list(x))
ax2.set_xticklabels(labels, fontsize=7)
ax2.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{out}/codec_merge.png", dpi=110)

# size: bits per value per column, chosen vs raw
sz = rows("codec_size.csv")
fig, ax = plt.subplots(figsize=(9, 5))
cols = [int(r["column"]) for r in sz]
n = [int(r["rows"]) for r in sz]
for key, lab in [("chosen_bytes", "chosen (exact bytes)"), ("for_bytes", "FOR"),
                 ("dict_padded_bytes", "dict + padded 1/2/4 B codes"),
                 ("dict_bytes", "dict + bit-packed"), ("lz4_bytes", "LZ4 chunks")]:
    ax.plot(cols, [8 * int(r[key]) / k for r, k in zip(sz, n)], marker="o", label=lab)
ax.axhline(32, color="k", ls="--", lw=1, label="raw int4")
raw = sum(int(r["raw_bytes"]) for r in sz)
ch = sum(int(r["chosen_bytes"]) for r in sz)
# paper 000's scheme: padded dictionary codes where they save space, else raw
pap = sum(min(int(r["plain_bytes"]), int(r["dict_padded_bytes"])) for r in sz)
ax.set_title(f"W1 Narrow-E columns, {n[0]:,} rows: {raw/1e6:.1f} MB raw -> chosen {ch/1e6:.1f} MB ({ch/raw:.2f});\n"
             f"paper-000 scheme (padded dict or raw) {pap/1e6:.1f} MB ({pap/raw:.2f}); "
             f"paper 000 reports 28624 -> 20032 MB (0.70)", fontsize=9)
ax.set_xlabel("column i (values uniform in 1..2^(2.7 i))")
ax.set_ylabel("bits per value")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{out}/codec_size.png", dpi=110)
print("plots written to", out)
