#!/usr/bin/env python3
"""Plots the (peak, recompute) frontier written by
`remat-opt --remat-compare-strategies=pareto=FILE`: one PNG per function,
activation peak against store-all's over recompute in % of the forward cost,
one marker per strategy, the plan chosen under max-recompute circled.

usage: /usr/bin/python3 scripts/plot-pareto.py frontier.json OUTDIR
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(func, outdir):
    sa = func["store_all_peak_bytes"]
    points = func["frontier"]
    xs = [p["recompute_percent"] for p in points]
    ys = [p["peak_activation_bytes"] / sa for p in points]
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.step(xs, ys, where="post", color="0.7", zorder=1)
    for strategy in sorted({p["strategy"] for p in points}):
        sel = [i for i, p in enumerate(points) if p["strategy"] == strategy]
        ax.scatter([xs[i] for i in sel], [ys[i] for i in sel], label=strategy,
                   zorder=2, s=22)
    chosen = func.get("chosen")
    if chosen is not None:
        ax.scatter([xs[chosen]], [ys[chosen]], s=140, facecolors="none",
                   edgecolors="red", linewidths=1.5, zorder=3,
                   label="chosen (max-recompute=%g%%)"
                   % func["max_recompute_percent"])
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("recompute, % of the forward cost")
    ax.set_ylabel("activation peak / store-all")
    ax.set_ylim(0, 1.05)
    ax.set_title(func["function"])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(outdir, func["function"] + ".png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    os.makedirs(sys.argv[2], exist_ok=True)
    for func in json.load(open(sys.argv[1])):
        print(plot(func, sys.argv[2]))


if __name__ == "__main__":
    main()
