#!/usr/bin/python3
"""Strategy table for imported PyTorch models (bench/import.md).

For each model of python/remat/zoo.py: import (remat.torch_import), every
strategy of --remat-compare-strategies on the training step (peak
activation bytes, recompute % of the forward cost, planning time), and the
compiled CPU step time (min over --steps runs of remat-runner, on the
model's weights and batch) for store-all against the auto plan under a
budget of half the store-all peak (or the smallest budget the planner can
meet, marked *), and at that budget the recompute of auto's plan beside
the exact MILP's (strategy milp, --milp-time-limit seconds, warm-started;
proven or the gap CBC reports; declined above its node limit). Prints
markdown tables.

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

STRATEGIES = ("store-all", "sqrt", "greedy", "logn", "revolve", "chain-opt", "mincut")


def plan_at(step, strategy, budget, workdir, extra=""):
    """The report-json plan of --remat-rematerialize with this strategy at
    ``budget``, or the first error line when the strategy declines."""
    report = os.path.join(workdir, f"{strategy}.json")
    proc = subprocess.run([pipeline.tool("remat-opt"), step,
                           f"--remat-rematerialize=strategy={strategy} budget={budget} "
                           f"report-json={report}{extra}", "-o", os.devnull],
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        err = [l for l in proc.stderr.splitlines() if "error:" in l]
        return (err[0].split("error:", 1)[1].strip() if err else proc.stderr[-300:])
    with open(report) as f:
        return json.load(f)[0]["plan"]


def milp_cell(plan):
    if isinstance(plan, str):
        return "declined: " + plan.replace("|", "/")
    sol = plan.get("solver", {})
    state = "proven" if sol.get("optimal") else f"gap {sol.get('gap_percent', float('nan')):.1f}%"
    return f"{plan['recompute_percent']:.2f}% ({state}, {sol.get('seconds', 0):.1f} s)"


def bench(name, workdir, steps, milp_limit):
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
    step = os.path.join(workdir, "step.mlir")
    subprocess.run([pipeline.tool("remat-opt"), fwd, "--remat-autodiff", "-o", step],
                   check=True, capture_output=True)
    auto = plan_at(step, "auto", budget, workdir)
    milp = plan_at(step, "milp", budget, workdir, f" time-limit={milp_limit}")
    t0 = time.perf_counter()
    remark = pipeline.verify_schedule(fwd, None, budget)
    plan_s = time.perf_counter() - t0
    base = pipeline.compile_and_run(fwd, workdir, weights, batch, "store-all", steps=steps, tag="all")
    budgeted = pipeline.compile_and_run(fwd, workdir, weights, batch, None, budget, steps=steps,
                                        tag="budget")
    ops = imported.mlir.count(" = remat.")
    return dict(name=name, ops=ops, params=sum(t.numel() for _, _, t in imported.params),
                import_s=import_s, plans=plans, peak=peak, budget=budget,
                budget_star=budget != peak // 2, remark=remark, auto=auto, milp=milp, plan_s=plan_s,
                ms_all=base.step_ms, ms_budget=budgeted.step_ms,
                arena_all=base.arena_bytes, arena_budget=budgeted.arena_bytes)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", nargs="+", default=["mlp", "cnn", "transformer", "gpt", "lstm"])
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--milp-time-limit", type=float, default=30.0)
    args = p.parse_args()
    rows = []
    for name in args.models:
        with tempfile.TemporaryDirectory() as d:
            rows.append(bench(name, d, args.steps, args.milp_time_limit))
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
          "plan+verify s | auto recompute % | milp recompute % (proven or gap, s) | "
          "step ms store-all | step ms budget | arena B store-all | arena B budget |")
    print("|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        star = "*" if r["budget_star"] else ""
        print(f"| {r['name']} | {r['peak']:,} | {r['budget']:,}{star} | {r['remark']} | "
              f"{r['plan_s']:.2f} | "
              + (r["auto"] if isinstance(r["auto"], str) else f"{r['auto']['recompute_percent']:.2f}")
              + f" | {milp_cell(r['milp'])} | {r['ms_all']:.3f} | {r['ms_budget']:.3f} | "
              f"{r['arena_all']:,} | {r['arena_budget']:,} |")


if __name__ == "__main__":
    main()
