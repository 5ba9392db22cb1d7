#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: tools/bench-report.py [--help] [--metrics M,M...] CSV [PNG]

Summarise a tools/bench CSV: for every metric, the per-run median for each
side, then the median, min and max over runs, and the ratio of the first
side's median to the second's (>1: the second is faster, for time metrics).
The sides are the two names in the CSV's kernel column, in order of first
appearance (base and patched unless tools/bench --labels said otherwise).
Prints a Markdown table; with PNG, draws the ratios as a bar chart
(matplotlib).  Guest instruction counts (unit insn, tools/bench under
QEMU TCG icount) are shown in millions.  --metrics draws only those
metrics, in that order (the table keeps them all).

A CSV of bench/hotplug-per-gib (a gib column) is drawn instead as the
cost per GiB of each step against the size plugged, one line per kernel.

matplotlib: Debian's python3-matplotlib; when the python3 in PATH lacks
it and /usr/bin/python3 has it, the chart is drawn by that one.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict
sys.dont_write_bytecode = True  # nothing left in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import operands, usage_error  # noqa: E402


def summarise(path):
    runs = defaultdict(list)     # (metric, kernel, pair) -> values
    units = {}
    scenario = None
    sides = []
    accels = set()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            scenario = row["scenario"]
            if row["kernel"] not in sides:
                sides.append(row["kernel"])
            runs[(row["metric"], row["kernel"], row["pair"])].append(
                float(row["value"]))
            units[row["metric"]] = row["unit"]
            # CSVs written before the accel column were all TCG runs.
            accels.add((row.get("accel") or "tcg").upper())
    per = defaultdict(lambda: defaultdict(list))  # metric -> kernel -> meds
    for (metric, kernel, _pair), vals in runs.items():
        per[metric][kernel].append(statistics.median(vals))
    if len(sides) != 2:
        raise ValueError("expected two sides in the kernel column, found %s"
                         % (", ".join(sides) or "none"))
    a, b = sides
    rows = []
    for metric in sorted(per):
        k = per[metric]
        if not k.get(a) or not k.get(b):
            continue
        ma, mb = statistics.median(k[a]), statistics.median(k[b])
        rows.append((metric, units[metric], len(k[a]), ma,
                     min(k[a]), max(k[a]), mb, min(k[b]),
                     max(k[b]), ma / mb if mb else float("inf")))
    return scenario, sides, rows, "+".join(sorted(accels))


def shown(unit, values):
    """values as the table shows them, and their unit: guest instruction
    counts (icount) in millions with two decimals, the rest with one."""
    if unit == "insn":
        return tuple("%.2f" % (v / 1e6) for v in values), "M insn"
    if unit.endswith("/page"):
        return tuple("%.2f" % v for v in values), unit
    return tuple("%.1f" % v for v in values), unit


CHART_METRICS = None


def parse_args(argv):
    """argv's operands, or an exit status (tools/cli.py)."""
    global CHART_METRICS
    argv = list(argv)
    if "--metrics" in argv[1:]:
        i = argv.index("--metrics", 1)
        if i + 1 >= len(argv) or not argv[i + 1] or argv[i + 1].startswith("-"):
            return usage_error("--metrics needs a comma-separated list of metrics")
        CHART_METRICS = [m for m in argv[i + 1].split(",") if m]
        del argv[i:i + 2]
    args = operands(argv, __doc__)
    if isinstance(args, int):
        return args
    if len(args) not in (1, 2):
        return usage_error("takes a CSV and optionally a PNG, got %d arguments"
                           % len(args))
    return args


def pyplot():
    """matplotlib.pyplot (Agg), or None."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.stderr.write("bench-report.py: matplotlib missing (Debian: python3-matplotlib), no chart\n")
        return None


def need_matplotlib():
    """Before anything is printed: re-run this script with Debian's
    python3 if the python3 running it lacks matplotlib and that one has
    it (a python3 of pyenv or a virtualenv first in PATH)."""
    import importlib.util
    if importlib.util.find_spec("matplotlib"):
        return
    deb = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(deb) and \
            os.access(deb, os.X_OK) and not os.environ.get("MMFAST_REEXEC"):
        os.environ["MMFAST_REEXEC"] = "1"
        os.execv(deb, [deb] + sys.argv)


def per_gib(path, png):
    """bench/hotplug-per-gib's CSV: median per kernel, size and step."""
    vals = defaultdict(list)
    units = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["metric"] in ("plug", "unplug"):
                vals[(row["metric"], row["kernel"], int(row["gib"]))].append(
                    float(row["value"]))
                units[row["metric"]] = row["unit"]
    if not vals:
        raise ValueError("no plug or unplug rows")
    steps = [st for st in ("plug", "unplug") if any(k[0] == st for k in vals)]
    kernels = sorted({k[1] for k in vals})
    sizes = sorted({k[2] for k in vals})
    print("| step | kernel | " + " | ".join("%d GiB" % g for g in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for st in steps:
        scale, su = (1e6, "M insn/GiB") if units[st] == "insn" else (1, units[st] + "/GiB")
        for k in kernels:
            cells = []
            for g in sizes:
                v = vals.get((st, k, g))
                cells.append("%.1f" % (statistics.median(v) / g / scale) if v else "-")
            print("| %s (%s) | %s | %s |" % (st, su, k, " | ".join(cells)))
    if not png:
        return 0
    plt = pyplot()
    if plt is None:
        return 1
    fig, axes = plt.subplots(1, len(steps), figsize=(5.2 * len(steps), 3.8))
    if len(steps) == 1:
        axes = [axes]
    for ax, st in zip(axes, steps):
        scale, su = (1e6, "M guest instructions per GiB") if units[st] == "insn" \
            else (1, units[st] + " per GiB")
        for k in kernels:
            xs = [g for g in sizes if (st, k, g) in vals]
            ys = [statistics.median(vals[(st, k, g)]) / g / scale for g in xs]
            ax.plot(xs, ys, marker="o", label=k)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(g) for g in sizes])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("GiB plugged (virtio-mem, ZONE_MOVABLE)")
        ax.set_ylabel(su)
        ax.set_title("%s cost per GiB" % st)
        ax.legend()
    fig.tight_layout()
    fig.savefig(png + ".tmp.png", dpi=100)
    os.replace(png + ".tmp.png", png)
    print("chart: %s" % png)
    return 0


def main(argv):
    args = parse_args(argv)
    if isinstance(args, int):
        return args
    argv = [argv[0]] + args
    if len(argv) == 3:
        need_matplotlib()
    try:
        with open(argv[1], newline="") as f:
            header = next(csv.reader(f), [])
    except OSError as e:
        sys.stderr.write("bench-report.py: %s\n" % e)
        return 1
    if "gib" in header:
        try:
            return per_gib(argv[1], argv[2] if len(argv) == 3 else None)
        except (KeyError, ValueError) as e:
            sys.stderr.write("bench-report.py: %s: %s\n" % (argv[1], e))
            return 1
    try:
        scenario, (sa, sb), rows, accel = summarise(argv[1])
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("bench-report.py: %s: %s\n" % (argv[1], e))
        return 1
    if not rows:
        sys.stderr.write("bench-report.py: no metric measured on both sides\n")
        return 1
    print("| %s (QEMU %s) | runs | %s median [min-max] | %s median [min-max] | %s/%s |"
          % (scenario, accel, sa, sb, sa, sb))
    print("|---|---|---|---|---|")
    for m, u, n, b, bmin, bmax, p, pmin, pmax, r in rows:
        vals, u = shown(u, (b, bmin, bmax, p, pmin, pmax))
        print("| %s (%s) | %d+%d | %s [%s-%s] | %s [%s-%s] | %.2fx |"
              % ((m, u, n, n) + vals + (r,)))
    if len(argv) == 3:
        plt = pyplot()
        if plt is None:
            return 1
        if CHART_METRICS:
            byname = {r[0]: r for r in rows}
            missing = [m for m in CHART_METRICS if m not in byname]
            if missing:
                sys.stderr.write("bench-report.py: --metrics: not in %s: %s\n"
                                 % (argv[1], ", ".join(missing)))
                return 1
            rows = [byname[m] for m in CHART_METRICS]
        fig, ax = plt.subplots(figsize=(max(5.5, 1.6 + 1.6 * len(rows)), 3.8))
        names = [r[0] for r in rows]
        ratios = [r[9] for r in rows]
        bars = ax.bar(names, ratios, color="#4477aa")
        if max(ratios) > 10:
            ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        for bar, r in zip(bars, ratios):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(),
                    "%.2fx" % r, ha="center", va="bottom")
        ax.set_ylabel("%s / %s (median of runs)" % (sa, sb))
        what = "guest instructions, QEMU TCG icount" if accel == "TCG-ICOUNT" else "QEMU " + accel
        ax.set_title("%s: %s against %s\n%s, %d boots each (>1: %s is cheaper)"
                     % (scenario, sb, sa, what, rows[0][2], sb), fontsize=10)
        plt.xticks(rotation=15, ha="right")
        fig.tight_layout()
        fig.savefig(argv[2] + ".tmp.png", dpi=100)
        os.replace(argv[2] + ".tmp.png", argv[2])
        print("chart: %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
