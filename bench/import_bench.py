#!/usr/bin/python3
"""Strategy table for imported PyTorch models (bench/import.md).

For each model of python/remat/zoo.py: import (remat.torch_import), every
strategy of --remat-compare-strategies on the training step (peak
activation bytes, recompute % of the forward cost, planning time), and the
compiled CPU step time (min over --steps runs of remat-runner, on the
model's weights and batch) for store-all against the auto plan under a
budget of half the store-all peak (or the smallest budget the planner can
meet, marked *). Prints a markdown table.

    REMAT_BUILD_DIR=build /usr/bin/python3 bench/import_bench.py \\
        --models mlp cnn transformer gpt lstm resnet18 mobilenet_v2 > bench/import.md
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from remat import pipeline, torch_import, zoo  # noqa: E402

STRATEGIES = ("store-all", "sqrt", "greedy", "logn", "revolve", "chain-opt")


def bench(name, workdir, steps):
    model, inputs, target, loss = zoo.build(name)
    t0 = time.perf_counter()
    imported = torch_import.import_module(model, inputs, target, loss)
    import_s = time.perf_counter() - t0
    fwd = os.path.join(workdir, "forward.mlir")
    with open(fwd, "w") as f:
        f.write(imported.mlir)
    weights, batch = os.path.join(workdir, "w.index"), os.path.join(workdir, "b.index")
    imported.write_weights(weights)
    imported.write_inputs(batch)
    report = os.path.join(workdir, "compare.json")
    subprocess.run([pipeline.tool("remat-opt"), fwd, "--remat-autodiff",
                    f"--remat-compare-strategies=json={report}", "-o", os.devnull],
                   check=True, capture_output=True)
    with open(report) as f:
        plans = {p["strategy"]: p for p in json.load(f)[0]["plans"]}
    peak = plans["store-all"]["peak_activation_bytes"]
    budget = pipeline.feasible_budget(fwd, peak // 2)
    t0 = time.perf_counter()
    remark = pipeline.verify_schedule(fwd, None, budget)
    plan_s = time.perf_counter() - t0
    base = pipeline.compile_and_run(fwd, workdir, weights, batch, "store-all", steps=steps, tag="all")
    budgeted = pipeline.compile_and_run(fwd, workdir, weights, batch, None, budget, steps=steps,
                                        tag="budget")
    ops = imported.mlir.count(" = remat.")
    return dict(name=name, ops=ops, params=sum(t.numel() for _, _, t in imported.params),
                import_s=import_s, plans=plans, peak=peak, budget=budget,
                budget_star=budget != peak // 2, remark=remark, plan_s=plan_s,
                ms_all=base.step_ms, ms_budget=budgeted.step_ms,
                arena_all=base.arena_bytes, arena_budget=budgeted.arena_bytes)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", nargs="+", default=["mlp", "cnn", "transformer", "gpt", "lstm"])
    p.add_argument("--steps", type=int, default=5)
    args = p.parse_args()
    rows = []
    for name in args.models:
        with tempfile.TemporaryDirectory() as d:
            rows.append(bench(name, d, args.steps))
        print(f"done {name}", file=sys.stderr)
    print("| model | forward ops | params | " + " | ".join(
        f"{s} peak B (recompute %, plan ms)" for s in STRATEGIES) + " |")
    print("|---|---:|---:|" + "---:|" * len(STRATEGIES))
    for r in rows:
        cells = []
        for s in STRATEGIES:
            pl = r["plans"].get(s)
            cells.append("declined" if pl is None else
                         f"{pl['peak_activation_bytes']:,} ({pl['recompute_percent']:.1f}%, "
                         f"{pl['plan_seconds'] * 1e3:.2f})")
        print(f"| {r['name']} | {r['ops']} | {r['params']:,} | " + " | ".join(cells) + " |")
    print()
    print("| model | store-all peak B | budget B | auto plan under the budget (verifier) | "
          "plan+verify s | step ms store-all | step ms budget | arena B store-all | arena B budget |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in rows:
        star = "*" if r["budget_star"] else ""
        print(f"| {r['name']} | {r['peak']:,} | {r['budget']:,}{star} | {r['remark']} | "
              f"{r['plan_s']:.2f} | {r['ms_all']:.3f} | {r['ms_budget']:.3f} | "
              f"{r['arena_all']:,} | {r['arena_budget']:,} |")


if __name__ == "__main__":
    main()
