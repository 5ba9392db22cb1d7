#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: tools/bench-report.py CSV [PNG]

Summarise a tools/bench CSV: for every metric, the per-run median for each
kernel, then the median, min and max over runs, and the ratio of the base
median to the patched median (>1: patched faster, for time metrics).  Prints
a Markdown table; with PNG, draws the ratios as a bar chart (matplotlib).
"""
import csv
import statistics
import sys
from collections import defaultdict


def summarise(path):
    runs = defaultdict(list)     # (metric, kernel, pair) -> values
    units = {}
    scenario = None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            scenario = row["scenario"]
            runs[(row["metric"], row["kernel"], row["pair"])].append(
                float(row["value"]))
            units[row["metric"]] = row["unit"]
    per = defaultdict(lambda: defaultdict(list))  # metric -> kernel -> meds
    for (metric, kernel, _pair), vals in runs.items():
        per[metric][kernel].append(statistics.median(vals))
    rows = []
    for metric in sorted(per):
        k = per[metric]
        if not k.get("base") or not k.get("patched"):
            continue
        b, p = statistics.median(k["base"]), statistics.median(k["patched"])
        rows.append((metric, units[metric], len(k["base"]), b,
                     min(k["base"]), max(k["base"]), p, min(k["patched"]),
                     max(k["patched"]), b / p if p else float("inf")))
    return scenario, rows


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 0 if len(argv) == 2 else 2
    try:
        scenario, rows = summarise(argv[1])
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("bench-report.py: %s: %s\n" % (argv[1], e))
        return 1
    if not rows:
        sys.stderr.write("bench-report.py: no metric measured on both kernels\n")
        return 1
    print("| %s (QEMU TCG) | runs | base median [min-max] | patched median [min-max] | base/patched |" % scenario)
    print("|---|---|---|---|---|")
    for m, u, n, b, bmin, bmax, p, pmin, pmax, r in rows:
        print("| %s (%s) | %d+%d | %.1f [%.1f-%.1f] | %.1f [%.1f-%.1f] | %.2fx |"
              % (m, u, n, n, b, bmin, bmax, p, pmin, pmax, r))
    if len(argv) == 3:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            sys.stderr.write("bench-report.py: matplotlib missing (pip install matplotlib), no chart\n")
            return 1
        fig, ax = plt.subplots(figsize=(max(5.5, 1.6 + 1.6 * len(rows)), 3.8))
        names = [r[0] for r in rows]
        ratios = [r[9] for r in rows]
        bars = ax.bar(names, ratios, color="#4477aa")
        ax.axhline(1.0, color="black", linewidth=0.8)
        for bar, r in zip(bars, ratios):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(),
                    "%.2fx" % r, ha="center", va="bottom")
        ax.set_ylabel("base / patched (median of runs)")
        ax.set_title("%s: A/B under QEMU TCG (%d pairs)" % (scenario, rows[0][2]))
        plt.xticks(rotation=15, ha="right")
        fig.tight_layout()
        fig.savefig(argv[2] + ".tmp.png", dpi=100)
        import os
        os.replace(argv[2] + ".tmp.png", argv[2])
        print("chart: %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
