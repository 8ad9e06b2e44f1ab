#!/usr/bin/env python3
"""W4 plot: throughput and mean latency per client count (bench/results/w4.csv)."""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from qsbench import RESULTS, pyplot  # noqa: E402

LABELS = {
    "nsm_off": "quickstep_nsm, shared scans off",
    "nsm_on": "quickstep_nsm, shared scans on",
    "nsm_on_base": "quickstep_nsm, shared on, W4_BASE_LIB (before)",
    "heap_btree": "heap + btree (baseline)",
}


def main():
    rows = list(csv.DictReader(open(os.path.join(RESULTS, "w4.csv"))))
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    for cfg, label in LABELS.items():
        pts = sorted((int(r["clients"]), float(r["tps"] or 0), float(r["latency_ms"] or 0))
                     for r in rows if r["config"] == cfg)
        if not pts:
            continue
        a1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        a2.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", label=label)
    for ax, title in ((a1, "transactions per second"), (a2, "mean latency (ms)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("clients")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=8)
    fig.suptitle("W4: concurrent selective scans of bookings (one flight, one day)")
    fig.tight_layout()
    out = os.path.join(RESULTS, "w4.png")
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
