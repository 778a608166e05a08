"""Compiled training steps against PyTorch, same model, weights and run.

usage: /usr/bin/python3 bench/perf.py [--build build] [--steps 10]
           [--threads 1,2] [--models mlp_d100_w256_b32,gpt_l2,...]
           [--baseline-models resnet_n4,...] [--serial-models resnet_n4,...]
           [--vectorize-models gpt_l2,...] [--body-work-models resnet18,...]
           [--threshold-models resnet18,... [--threshold 16384]]
           [--imported resnet18,cnn]
           [-o bench/perf-results.md]

For every example model (examples/<model>.mlir) and strategy (store-all,
sqrt, a budget of 50% of store-all's planned activation peak), compiles the training step with
remat-compile (wall and CPU seconds), builds the runner, and runs --steps
steps at each thread count; PyTorch (bench/torch_step.py, eager, float32)
runs the same model on the weights the runner dumped, in the same process
tree, right after. Step times are medians over the steps after the first.
A model whose compiled store-all step is short runs more steps on both
sides (enough for --min-seconds of compiled steps, at most 2,000): the
microsecond steps of the small zoo models are too noisy over 10 steps to
tell 1 thread from 2.
Models of python/remat/zoo.py named by --imported are imported with
remat.torch_import (weights and batch included); PyTorch times the torch
module itself on them (bench/torch_zoo_step.py).
Prints a markdown table (and writes it with -o) with the ratio compiled /
PyTorch, the peak RSS of both processes, the BLAS each side loaded and the
machine's load average while it ran. Recompute columns: measured (this
plan's step over store-all's, same run and threads, - 1), the plan's
recompute cost in % of the forward's flops, and remat-compile's time
estimate (flops and bytes moved, lib/Driver/TimeEstimate.cpp) of the
recompute in % of the rest of the step, by time and by flops, and the
calibrated estimate (--time-model, default bench/time-model.json when it
exists: per-op-class throughput measured by bench/calibrate_time.py,
lib/Driver/TimeModel.cpp): the recompute's predicted ms beside the measured
ms, its % of the step, and the predicted store-all step. Below the table:
how close each estimate is to the measured recompute (mean absolute error
in points of the step, and the worst row).
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
PYTHON = "/usr/bin/python3"
MODELS = ["mlp_d100_w256_b32", "gpt_l2", "resnet_n4", "lstm_t8"]


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CompileError(Exception):
    pass


TIME_MODEL = os.path.join(HERE, "time-model.json")


def compile_budget(build, model, budget, out, flags=()):
    """50% of store-all's planned peak, or the smallest budget remat can meet when
    that is infeasible; returns (label, compile_step's result)."""
    try:
        return (f"budget {budget} (50%)",
                compile_step(build, model, [f"--budget={budget}"] +
                             list(flags), out))
    except CompileError as error:
        smallest = re.search(r"smallest budget remat can meet for this graph "
                             r"is (\d+) bytes", str(error))
        if not smallest:
            raise
        budget = int(smallest.group(1))
        return (f"budget {budget} (smallest feasible; 50% is not)",
                compile_step(build, model, [f"--budget={budget}"] +
                             list(flags), out))


def compile_step(build, model, flags, out):
    """Compiles with -v; returns (wall s, cpu s, arena bytes, planned
    activation peak, predicted recompute cost in % of the forward's cost,
    the time estimate, the calibrated estimate), the last four from the
    remarks (None without a strategy or budget)."""
    wall, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run([os.path.join(build, "bin", "remat-compile"), model,
                           "-o", out + ".o", "--header=" + out + ".h", "-v"] +
                          flags,
                          stderr=subprocess.PIPE, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode != 0:
        raise CompileError(done.stderr)
    subprocess.run([os.path.join(build, "bin", "remat-runner"), "--header",
                    out + ".h", "--object", out + ".o", "-o", out + ".run"],
                   check=True)
    with open(out + ".h") as header:
        arena = int(re.search(r"#define REMAT_ARENA_BYTES (\d+)",
                              header.read()).group(1))
    return (wall, cpu, arena) + parse_plan_remarks(done.stderr) + (
        parse_calibrated_remark(done.stderr),)


def parse_plan_remarks(stderr):
    """(planned activation peak, recompute cost in % of the forward's flops,
    (estimated recompute time, recompute flops) in % of the rest of the
    step) from remat-compile's remarks; None for what is missing."""
    plan = re.search(r"peak activation bytes (\d+) .*recompute cost \S+ "
                     r"\(([0-9.]+)% of forward\)", stderr)
    estimate = re.search(r"time estimate: .*: ([0-9.]+)% of the step by "
                         r"time, ([0-9.]+)% by flops", stderr)
    return (int(plan.group(1)) if plan else None,
            float(plan.group(2)) if plan else None,
            (float(estimate.group(1)), float(estimate.group(2)))
            if estimate else None)


def parse_calibrated_remark(stderr):
    """(predicted step ms without recompute, predicted recompute ms, its %
    of the step) from remat-compile's calibrated time estimate remark, or
    None."""
    found = re.search(r"calibrated time estimate: step without recompute "
                      r"([0-9.]+) ms, recompute ([0-9.]+) ms in \d+ ops: "
                      r"([0-9.]+)% of the step", stderr)
    return tuple(float(g) for g in found.groups()) if found else None


def calibrated_cell(measured_ms, calibrated):
    """'measured / predicted' recompute ms ('-' for what is missing)."""
    def ms(value):
        return "-" if value is None else f"{value:+.3g}" if value else "0"
    if calibrated is None:
        return "-"
    return f"{ms(measured_ms)} / {ms(calibrated[1])}"


def tracking_errors(rows):
    """How close each estimate of the recompute is to the measured one.
    ROWS: (name, label, threads, measured %, estimates) with ESTIMATES a
    dict estimator -> % of the step (None: not estimated); rows without a
    measured figure or that recompute nothing (store-all) are skipped.
    Returns {estimator: (mean absolute error in points, rows, worst row's
    (name, label, threads, measured, estimate))}."""
    errors = {}
    for name, label, threads, measured, estimates in rows:
        if measured is None or label == "store-all":
            continue
        for estimator, value in estimates.items():
            if value is None:
                continue
            errors.setdefault(estimator, []).append(
                (abs(value - measured), (name, label, threads, measured,
                                         value)))
    return {estimator: (sum(e for e, _ in pairs) / len(pairs), len(pairs),
                        max(pairs, key=lambda pair: pair[0])[1])
            for estimator, pairs in errors.items()}


def tracking_lines(errors):
    """Markdown lines for tracking_errors' result, best estimator first."""
    lines = []
    for estimator, (mean, count, worst) in sorted(errors.items(),
                                                  key=lambda e: e[1][0]):
        name, label, threads, measured, value = worst
        lines.append(f"- {estimator}: mean absolute error {mean:.1f} points "
                     f"over {count} rows; worst {name} {label} "
                     f"{threads}T: {value:+.1f} predicted, {measured:+.1f} "
                     f"measured")
    return lines


def overhead_percent(ms, store_ms):
    """Measured recompute overhead: step time over store-all's - 1, in %."""
    return 100.0 * (ms / store_ms - 1.0)


def percent(value):
    return "-" if value is None else f"{value:+.1f}" if value else "0"


def estimate_cell(estimated):
    """The time estimate's column: '+time / +flops' (% of the step)."""
    if estimated is None:
        return "-"
    return f"{percent(estimated[0])} / {percent(estimated[1])}"


def run_step(runner, steps, threads, dump=None, extra=()):
    """Runs the compiled step; returns (median ms, max RSS KiB, blas, loss)."""
    command = [runner, "--steps", str(steps + 1), "--threads", str(threads)]
    command += list(extra)
    if dump:
        command += ["--dump", dump]
    output = subprocess.run(command, check=True, capture_output=True,
                            text=True).stdout
    times = [float(m) for m in re.findall(r"^perf step \d+ ms ([0-9.]+)$",
                                          output, re.M)][1:]
    rss = int(re.search(r"max_rss_kib (\d+)", output).group(1))
    blas = re.search(r"^perf threads \d+ blas (.*)$", output, re.M).group(1)
    return statistics.median(times), rss, blas


MAX_STEPS = 2000


def steps_for(probe_ms, steps, min_seconds):
    """Steps to time a model whose step took PROBE_MS: at least STEPS, and
    enough for MIN_SECONDS of steps, at most MAX_STEPS (never fewer than
    STEPS)."""
    if probe_ms <= 0:
        return steps
    wanted = int(min_seconds * 1000 / probe_ms) + 1
    return max(steps, min(wanted, MAX_STEPS))


def run_torch_script(script, args, steps, threads):
    """Runs bench/SCRIPT (torch_step.py or torch_zoo_step.py) and parses its
    result line: (median ms, max RSS KiB, BLAS library)."""
    output = subprocess.run(
        [PYTHON, os.path.join(HERE, script)] + args +
        ["--threads", str(threads), "--steps", str(steps)],
        check=True, capture_output=True, text=True).stdout
    fields = output.split()
    values = dict(zip(fields[1::2], fields[2::2]))
    return float(values["median_ms"]), int(values["max_rss_kib"]), \
        values["blas"]


def run_torch(model, dump, steps, threads):
    return run_torch_script("torch_step.py", [model, dump], steps, threads)


def run_torch_zoo(name, steps, threads):
    return run_torch_script("torch_zoo_step.py", [name], steps, threads)


def import_zoo(name, base):
    """Imports python/remat/zoo.py's NAME (remat.torch_import, in a child
    process); returns (model path, the runner's --weights/--inputs)."""
    subprocess.run([PYTHON, os.path.join(HERE, "torch_zoo_step.py"), name,
                    "--export", base], check=True)
    return base + ".mlir", ["--weights", base + "-weights.index",
                            "--inputs", base + "-inputs.index"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--baseline-models", default="",
                        help="models that also get a 'loops' row: store-all "
                             "compiled as before the BLAS path "
                             "(--blas=false --split-threshold=-1)")
    parser.add_argument("--serial-models", default="",
                        help="models that also get a 'no OpenMP' row: "
                             "store-all with the loops on one thread "
                             "(--parallel-threshold=-1; the BLAS still uses "
                             "--threads)")
    parser.add_argument("--vectorize-models", default="",
                        help="models that also get an 'upstream vector' "
                             "row: store-all with the non-library loops "
                             "vectorised by remat-cpu-vectorize "
                             "(--cpu-vectorize=upstream)")
    parser.add_argument("--body-work-models", default="",
                        help="models that also get a 'body-work' row: "
                             "store-all with --parallel-body-work (the "
                             "parallel threshold counts iterations times "
                             "the work of one iteration)")
    parser.add_argument("--threshold-models", default="",
                        help="models that also get a 'threshold' row: "
                             "store-all with --parallel-threshold="
                             "THRESHOLD (ops of fewer loop iterations stay "
                             "on one thread; remat-compile's default is "
                             "32768)")
    parser.add_argument("--threshold", type=int, default=16384,
                        help="the parallel threshold of the 'threshold' "
                             "rows (16384: ResNet-18's layer-2 batch-norm, "
                             "ReLU and add loops on threads)")
    parser.add_argument("--imported", default="",
                        help="models of python/remat/zoo.py (e.g. resnet18, "
                             "cnn), imported with remat.torch_import; "
                             "PyTorch runs the torch module itself "
                             "(bench/torch_zoo_step.py)")
    parser.add_argument("--min-seconds", type=float, default=0.5,
                        help="run at least this many seconds of compiled "
                             "store-all steps per measurement (more steps "
                             "than --steps for short steps, both sides; at "
                             "most 2,000)")
    parser.add_argument("--time-model",
                        default=TIME_MODEL if os.path.exists(TIME_MODEL)
                        else "",
                        help="calibrated time model for remat-compile's "
                             "--time-model (bench/calibrate_time.py; "
                             "default bench/time-model.json if present, "
                             "'' for none)")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    model_flags = ([f"--time-model={args.time_model}"]
                   if args.time_model else [])
    threads = [int(t) for t in args.threads.split(",")]
    rows, blas = [], {}
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        models = [(name, False) for name in args.models.split(",") if name]
        models += [(name, True) for name in args.imported.split(",") if name]
        for name, imported in models:
            base = os.path.join(tmp, name)
            extra = []
            if imported:
                model, extra = import_zoo(name, base)
            else:
                model = os.path.join(ROOT, "examples", name + ".mlir")
            # The plan remark (-v, with a strategy named): the budget is 50%
            # of the planned activation peak (what --budget bounds), not of
            # the arena, which also holds arguments and results (e.g. every
            # weight gradient).
            store = compile_step(args.build, model,
                                 ["--strategy=store-all"] + model_flags,
                                 base + "-store")
            if store[3] is None:
                raise CompileError("no plan remark for " + model)
            strategies = [("store-all", store)]
            strategies.append(("sqrt", compile_step(
                args.build, model, ["--strategy=sqrt"] + model_flags,
                base + "-sqrt")))
            budget = store[3] // 2
            strategies.append(compile_budget(args.build, model, budget,
                                             base + "-budget", model_flags))
            if name in args.baseline_models.split(","):
                strategies.append(("store-all, loops", compile_step(
                    args.build, model,
                    ["--blas=false", "--split-threshold=-1"],
                    base + "-loops")))
            if name in args.serial_models.split(","):
                strategies.append(("store-all, no OpenMP", compile_step(
                    args.build, model, ["--strategy=store-all",
                                        "--parallel-threshold=-1"],
                    base + "-serial")))
            if name in args.vectorize_models.split(","):
                strategies.append(("store-all, upstream vector",
                                   compile_step(
                                       args.build, model,
                                       ["--strategy=store-all",
                                        "--cpu-vectorize=upstream"],
                                       base + "-vector")))
            if name in args.body_work_models.split(","):
                strategies.append(("store-all, body-work", compile_step(
                    args.build, model, ["--strategy=store-all",
                                        "--parallel-body-work"],
                    base + "-bodywork")))
            threshold_label = f"store-all, threshold {args.threshold}"
            if name in args.threshold_models.split(","):
                strategies.append((threshold_label, compile_step(
                    args.build, model, ["--strategy=store-all",
                                        "--parallel-threshold="
                                        f"{args.threshold}"],
                    base + "-threshold")))
            dump = base + "-dump"
            os.makedirs(dump)
            run_step(base + "-store.run", 1, 1, dump, extra)
            # A short step gets more steps (both sides, every thread count).
            probe_ms = run_step(base + "-store.run", args.steps, 1,
                                extra=extra)[0]
            steps = steps_for(probe_ms, args.steps, args.min_seconds)
            for t in threads:
                store_ms = None
                if imported:
                    torch_ms, torch_rss, blas["torch"] = run_torch_zoo(
                        name, steps, t)
                else:
                    torch_ms, torch_rss, blas["torch"] = run_torch(
                        model, dump, steps, t)
                for label, (wall, cpu, arena, _, predicted, estimated,
                            calibrated) in strategies:
                    suffix = {"store-all": "-store", "sqrt": "-sqrt",
                              "store-all, loops": "-loops",
                              "store-all, no OpenMP": "-serial",
                              "store-all, upstream vector": "-vector",
                              "store-all, body-work": "-bodywork",
                              threshold_label: "-threshold"}.get(
                                  label, "-budget")
                    ms, rss, blas["remat"] = run_step(
                        base + suffix + ".run", steps, t, extra=extra)
                    shown = name + (" (imported)" if imported else "")
                    # Recompute overhead in time: this plan's step over
                    # store-all's, same model, threads and run, beside what
                    # the plan predicted (its recompute cost, % of the
                    # forward's cost); none for the loop baseline.
                    if label == "store-all":
                        store_ms = ms
                    measured = measured_ms = None
                    variant = any(word in label for word in (
                        "OpenMP", "loops", "vector", "body-work",
                        "threshold"))
                    if predicted is not None and store_ms and not variant:
                        measured = overhead_percent(ms, store_ms)
                        measured_ms = ms - store_ms
                    if variant:
                        estimated = calibrated = None
                    rows.append((shown, label, t, ms, torch_ms, ms / torch_ms,
                                 measured, predicted, estimated, rss,
                                 torch_rss, arena, wall, cpu, steps,
                                 measured_ms, calibrated))
                    print(rows[-1], file=sys.stderr)
                loads.append(os.getloadavg()[0])
                print(f"{name} threads {t} done", file=sys.stderr)

    def milliseconds(value):
        # Two decimals, three significant digits below 1 ms (the LSTM and
        # CNN steps take tens of microseconds).
        return f"{value:.2f}" if value >= 1 else f"{value:.3g}"


    lines = [
        "| model | strategy | threads | steps | compiled ms | PyTorch ms | "
        "ratio | "
        "recompute time % (measured) | recompute % of fwd (planned) | "
        "recompute % of step (estimated: time / flops) | "
        "recompute ms (measured / calibrated) | "
        "recompute % of step (calibrated) | "
        "step ms without recompute (calibrated) | "
        "compiled RSS MiB | PyTorch RSS MiB | arena bytes | compile wall s | "
        "compile CPU s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        "---:|---:|---:|---:|---:|"]
    tracked = []
    for (name, label, t, ms, tms, ratio, measured, predicted, estimated, rss,
         trss, arena, wall, cpu, steps, measured_ms, calibrated) in rows:
        tracked.append((name, label, t, measured, {
            "calibrated (--time-model)":
                calibrated[2] if calibrated else None,
            "time estimate (flops / 100 GFLOP/s + bytes / 7.5 GB/s)":
                estimated[0] if estimated else None,
            "flops alone": estimated[1] if estimated else None,
            "planned % of forward / 3":
                predicted / 3 if predicted is not None else None}))
        lines.append(f"| {name} | {label} | {t} | {steps} | "
                     f"{milliseconds(ms)} | "
                     f"{milliseconds(tms)} | "
                     f"{ratio:.2f} | {percent(measured)} | "
                     f"{percent(predicted)} | {estimate_cell(estimated)} | "
                     f"{calibrated_cell(measured_ms, calibrated)} | "
                     f"{percent(calibrated[2]) if calibrated else '-'} | "
                     f"{milliseconds(calibrated[0]) if calibrated else '-'} | "
                     f"{rss / 1024:.1f} | "
                     f"{trss / 1024:.1f} | {arena} | {wall:.1f} | {cpu:.1f} |")
    shown_model = (os.path.relpath(args.time_model, ROOT)
                   if args.time_model else "none")
    lines.append("")
    lines.append(f"BLAS: compiled step: {blas.get('remat')}; PyTorch "
                 f"{__import__('torch').__version__}: {blas.get('torch')}.")
    lines.append("Recompute: measured = step time over store-all's in the "
                 "same run and thread count - 1 (% of the step); planned = "
                 "the plan's recompute cost in % of the forward's cost "
                 "(remat-compile -v). With a backward about twice the "
                 "forward, p% of the forward is about p/3 % of the step. "
                 "Estimated = remat-compile's time estimate of the "
                 "recomputed ops in % of the rest of the step, by time "
                 "(flops / 100 GFLOP/s + bytes moved / 7.5 GB/s, one "
                 "thread) and by flops alone; compare it with measured. "
                 "Calibrated = the same from remat-compile --time-model "
                 f"({shown_model}): each op's time from its "
                 "class and size at the throughput bench/calibrate_time.py "
                 "measured (one thread).")
    lines.append("")
    lines.append("How close each estimate of the recompute (% of the step) "
                 "is to the measured one, every row that recomputes:")
    lines += tracking_lines(tracking_errors(tracked))
    lines.append(f"Load average (1 min) during the run: "
                 f"{min(loads):.1f} to {max(loads):.1f} on "
                 f"{os.cpu_count()} cores.")
    table = "\n".join(lines)
    print(table)
    if args.output:
        with open(args.output, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
