#!/usr/bin/python3
"""Compiled property check of the rematerialization planners (issue 8).

For every seed: a random small forward model (a DAG of matmuls, biases,
elementwise ops, layer norms, softmaxes and dropouts on [batch, width]
tensors, skip connections included, ending in an MSE loss) is written as
remat IR with python/remat_models, differentiated by `remat-opt
--remat-autodiff`, and planned with random strategies at random budgets
(a fraction of the store-all peak). Properties:

- a plan `remat-rematerialize` returns under a budget has a peak within it
  (its remat.plan annotation) and passes `remat-verify-schedule` with that
  budget against the step before the rewrite;
- a budget a strategy cannot meet is refused with the smallest budget remat
  can meet and the strategy that meets it (below the refused budget only if
  that is another strategy), and that strategy meets it (or,
  for a strategy that declines the budget with its own reason, with a
  located error: no plan is claimed);
- the plan, compiled with remat-compile and run with the remat runner for two
  SGD steps, gives bitwise the same losses and the same bytes for every
  result (the loss and every gradient) and every parameter as the store-all
  step compiled from the same IR.

Any violation, crash or unexpected error fails with the seed, the command and
the files under --work, which reproduce it. Prints one line per plan and a
summary; fails as well when no plan recomputed anything (a vacuous run).

Usage: compiled_property.py --seeds 0:8 --opt remat-opt
           --compile remat-compile --runner remat-runner --work DIR
"""

import argparse
import filecmp
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "python"))

from remat_models.builder import FunctionBuilder  # noqa: E402
from remat_models.mlir_types import TensorType  # noqa: E402

#: Strategies not drawn: milp solves with CBC (up to a minute, and absent
#: from builds without it); forward-min-peak plans forward-only graphs.
SKIPPED_STRATEGIES = {"milp", "forward-min-peak"}

UNARY = ["tanh", "relu", "sigmoid", "gelu", "neg"]


class PropertyError(Exception):
    pass


def random_model(rng: random.Random, name: str) -> str:
    """A random forward model as MLIR text (one function returning the loss)."""
    batch = rng.randint(1, 4)
    width = rng.choice([2, 3, 4, 5, 8])
    act = TensorType((batch, width), "f32")
    vec = TensorType((width,), "f32")
    num_ops = rng.randint(3, 14)
    kinds = [rng.choice(["matmul", "matmul", "bias", "unary", "unary",
                         "binary", "layer_norm", "softmax", "dropout"])
             for _ in range(num_ops)]
    # At least one parameter, or there is nothing to differentiate.
    if not {"matmul", "bias", "layer_norm"} & set(kinds):
        kinds[rng.randrange(num_ops)] = "matmul"
    fb = FunctionBuilder(name)
    values = [fb.arg("x", act)]
    target = fb.arg("target", act)
    seed = fb.arg("seed", TensorType((), "i64")) if "dropout" in kinds else None
    # Every parameter an op reads, declared before the first op.
    params = []
    for i, kind in enumerate(kinds):
        if kind == "matmul":
            params.append([fb.param(f"w{i}", TensorType((width, width), "f32"))])
        elif kind == "bias":
            params.append([fb.param(f"b{i}", vec)])
        elif kind == "layer_norm":
            params.append([fb.param(f"g{i}", vec), fb.param(f"beta{i}", vec)])
        else:
            params.append([])

    used = set()

    def pick():
        # Mostly the newest value (a chain), sometimes an older one (a skip).
        if rng.random() < 0.6:
            index = len(values) - 1
        else:
            index = rng.randrange(len(values))
        used.add(index)
        return values[index]

    for kind, ps in zip(kinds, params):
        if kind == "matmul":
            values.append(fb.matmul(pick(), ps[0]))
        elif kind == "bias":
            values.append(fb.add(pick(), ps[0]))
        elif kind == "unary":
            values.append(fb.unary(rng.choice(UNARY), pick()))
        elif kind == "binary":
            op = rng.choice(["add", "sub", "mul"])
            values.append(getattr(fb, op)(pick(), pick()))
        elif kind == "layer_norm":
            values.append(fb.layer_norm(pick(), ps[0], ps[1]))
        elif kind == "softmax":
            values.append(fb.softmax(pick()))
        else:
            values.append(fb.dropout(pick(), seed, rate=rng.choice([0.1, 0.5])))
    # Values nothing reads are summed into the prediction, so that every op
    # contributes to the loss.
    out = values[-1]
    for index in range(1, len(values) - 1):
        if index not in used:
            out = fb.add(out, values[index])
    loss = fb.mse(out, target, name="loss")
    return fb.finish(loss).text()


class Checker:
    def __init__(self, args):
        self.args = args
        self.plans = 0
        self.recomputing = 0
        self.refused = 0
        self.declined = 0
        self.strategies = None

    def run(self, cmd, what, expect_ok=True):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        # A signal (a crash or a sanitizer abort) is never acceptable.
        if proc.returncode < 0 or (expect_ok and proc.returncode != 0):
            raise PropertyError(f"{what} failed (exit {proc.returncode}):\n  "
                                + " ".join(cmd) + "\n" + proc.stderr[-4000:])
        return proc

    def strategy_names(self, step):
        proc = self.run([self.args.opt, step,
                         "--remat-rematerialize=strategy=?", "-o", os.devnull],
                        "listing the strategies", expect_ok=False)
        match = re.search(r"expected one of: ([a-z, -]+)", proc.stderr)
        if not match:
            raise PropertyError("remat-opt lists no strategies:\n" + proc.stderr)
        names = [n.strip() for n in match.group(1).split(",")]
        return [n for n in names if n and n not in SKIPPED_STRATEGIES]

    def compile_and_run(self, mlir, stem):
        obj, header, runner = stem + ".o", stem + ".h", stem + ".run"
        self.run([self.args.compile, mlir, "-o", obj, "--header=" + header],
                 "remat-compile " + mlir)
        self.run([self.args.runner, "--header", header, "--object", obj,
                  "-o", runner], "building the runner of " + mlir)
        dump = stem + ".dump"
        os.makedirs(dump, exist_ok=True)
        out = self.run([runner, "--steps", "2", "--dump", dump],
                       "running " + runner).stdout
        stable = [l for l in out.splitlines() if not l.startswith(("perf", "memory"))]
        return stable, dump

    def plan(self, step, strategy, budget, stem):
        """Plans `step`; returns the rewritten file, or None when the budget
        is refused as infeasible (after checking the named smallest budget)."""
        out = stem + ".mlir"
        options = f"strategy={strategy} budget={budget} verify=true annotate=true"
        proc = self.run([self.args.opt, step,
                         f"--remat-rematerialize={options}", "-o", out],
                        f"remat-rematerialize{{{options}}}", expect_ok=False)
        if proc.returncode != 0:
            match = re.search(r"smallest budget remat can meet for this graph "
                              r"is (\d+) bytes \(strategy '([a-z-]+)'\)",
                              proc.stderr)
            declined = re.search(r"error: strategy '[a-z-]+' produced no plan",
                                 proc.stderr)
            if not match and declined and budget:
                # Some strategies (chain-opt) refuse a budget below their
                # least plan with their own reason instead of naming the
                # smallest budget: a located error, no plan claimed.
                self.declined += 1
                print(f"  {strategy} budget {budget}: no plan "
                      "(the strategy declined the budget)")
                return None
            if not match or budget == 0:
                raise PropertyError(f"remat-rematerialize{{{options}}} failed "
                                    "without naming a smallest budget:\n"
                                    + proc.stderr[-4000:])
            smallest, named = int(match.group(1)), match.group(2)
            # Another strategy may meet less than this one can (mincut's
            # searched plans often do); the strategy itself may not.
            if smallest <= budget and named == strategy:
                raise PropertyError(f"budget {budget} refused, but the smallest "
                                    f"budget named is {smallest} for the same "
                                    f"strategy '{strategy}'")
            self.refused += 1
            print(f"  {strategy} budget {budget}: refused, smallest {smallest} "
                  f"({named})")
            return self.plan(step, named, smallest, stem + "-smallest")
        with open(out) as f:
            text = f.read()
        peak = re.search(r"remat\.plan = \{.*?\bpeak = (\d+)", text)
        recomputed = re.search(r"recomputed_ops = (\d+)", text)
        if not peak or not recomputed:
            raise PropertyError(f"{out} has no remat.plan annotation")
        peak, recomputed = int(peak.group(1)), int(recomputed.group(1))
        if budget and peak > budget:
            raise PropertyError(f"{strategy}: plan peak {peak} is over the "
                                f"budget {budget} ({out})")
        self.run([self.args.opt, out,
                  f"--remat-verify-schedule=budget={budget} original={step}",
                  "-o", os.devnull], "remat-verify-schedule of " + out)
        print(f"  {strategy} budget {budget}: peak {peak}, "
              f"{recomputed} recomputed ops")
        if strategy != "store-all" or budget:
            self.plans += 1
            self.recomputing += recomputed > 0
        return out

    def check_seed(self, seed):
        rng = random.Random(seed)
        work = os.path.join(self.args.work, f"seed{seed}")
        os.makedirs(work, exist_ok=True)
        forward = os.path.join(work, "forward.mlir")
        with open(forward, "w") as f:
            f.write(random_model(rng, "step"))
        step = os.path.join(work, "step.mlir")
        self.run([self.args.opt, forward, "--remat-autodiff", "-o", step],
                 "remat-autodiff of " + forward)
        if self.strategies is None:
            self.strategies = self.strategy_names(step)
        store_all = self.plan(step, "store-all", 0, os.path.join(work, "store-all"))
        with open(store_all) as f:
            peak = int(re.search(r"store_all_peak = (\d+)", f.read()).group(1))
        print(f"seed {seed}: store-all peak {peak}")
        reference, reference_dump = self.compile_and_run(
            step, os.path.join(work, "store-all"))
        for k in range(self.args.plans_per_seed):
            strategy = rng.choice(self.strategies)
            # No budget, or 1/8 .. 8/8 of the store-all peak.
            eighths = rng.randint(0, 8)
            budget = peak * eighths // 8
            plan = self.plan(step, strategy, budget,
                             os.path.join(work, f"plan{k}-{strategy}"))
            if plan is None:
                continue
            results, dump = self.compile_and_run(plan, plan[:-len(".mlir")])
            if results != reference:
                raise PropertyError(f"seed {seed}: {plan} prints other losses or "
                                    f"checksums than store-all:\n"
                                    + "\n".join(results) + "\nvs\n"
                                    + "\n".join(reference))
            names = sorted(n for n in os.listdir(reference_dump))
            if names != sorted(os.listdir(dump)):
                raise PropertyError(f"seed {seed}: {dump} and {reference_dump} "
                                    "hold different buffers")
            for name in names:
                if not filecmp.cmp(os.path.join(dump, name),
                                   os.path.join(reference_dump, name),
                                   shallow=False):
                    raise PropertyError(f"seed {seed}: {plan}: {name} differs "
                                        f"from store-all ({dump})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0:8",
                        help="first:last (exclusive) seed")
    parser.add_argument("--plans-per-seed", type=int, default=2)
    parser.add_argument("--opt", required=True)
    parser.add_argument("--compile", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    first, last = (int(s) for s in args.seeds.split(":"))
    checker = Checker(args)
    try:
        for seed in range(first, last):
            checker.check_seed(seed)
    except PropertyError as error:
        print(f"property violated: {error}", file=sys.stderr)
        return 1
    if checker.recomputing == 0:
        print("property check vacuous: no plan recomputed anything",
              file=sys.stderr)
        return 1
    print(f"{last - first} graphs, {checker.plans} plans compiled "
          f"({checker.recomputing} recomputing; {checker.refused} budgets "
          f"refused with a smallest budget, {checker.declined} declined): "
          f"every plan within its budget, verified, and bitwise "
          f"equal to store-all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
