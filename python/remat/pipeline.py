"""Runs an imported model through the remat tools: autodiff and a schedule
(checked by --remat-verify-schedule), compilation for the CPU, one step with
the model's weights and batch; and computes PyTorch's loss and gradients on
the same weights and batch for comparison.

The tools are taken from ``$REMAT_BUILD_DIR/bin`` (default: ``build/bin`` in
the repository).
"""

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.environ.get("REMAT_BUILD_DIR", os.path.join(REPO_ROOT, "build"))
_NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i64": np.int64,
          "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": np.uint8}


def tool(name: str) -> str:
    return os.path.join(BUILD_DIR, "bin", name)


class ToolError(RuntimeError):
    pass


def _run(cmd: List[str], timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc


def _schedule_options(strategy: Optional[str], budget: Optional[int]) -> str:
    opts = []
    if strategy:
        opts.append(f"strategy={strategy}")
    if budget:
        opts.append(f"budget={budget}")
    return " ".join(opts)


def store_all_peak(forward_mlir: str, workdir: str) -> int:
    """The activation peak of the training step without rematerialization."""
    report = os.path.join(workdir, "memory.json")
    _run([tool("remat-opt"), forward_mlir, "--remat-autodiff",
          f"--remat-memory-report=json-file={report}", "-o", os.devnull])
    with open(report) as f:
        data = json.load(f)
    funcs = data if isinstance(data, list) else data.get("functions", [data])
    return int(funcs[0]["peak_activation_bytes"])


def feasible_budget(forward_mlir: str, budget: int) -> int:
    """``budget`` if the planner can meet it, else the smallest budget it
    reports it can meet."""
    proc = subprocess.run([tool("remat-opt"), forward_mlir, "--remat-autodiff",
                           f"--remat-rematerialize=budget={budget}", "-o", os.devnull],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode == 0:
        return budget
    m = re.search(r"smallest budget remat can meet for this graph is (\d+) bytes", proc.stderr)
    if not m:
        raise ToolError(proc.stderr[-2000:])
    return int(m.group(1))


def verify_schedule(forward_mlir: str, strategy: Optional[str], budget: Optional[int]) -> str:
    """Autodiff, rewrite with the strategy/budget, then the independent
    verifier against the step before the rewrite (``original=``: every op
    reads the values it read there) and the same budget; returns the
    verifier's remark."""
    step = os.path.splitext(forward_mlir)[0] + ".step.mlir"
    _run([tool("remat-opt"), forward_mlir, "--remat-autodiff", "-o", step])
    opts = _schedule_options(strategy, budget)
    proc = _run([tool("remat-opt"), step, f"--remat-rematerialize={opts}",
                 f"--remat-verify-schedule=budget={budget or 0} original={step}",
                 "-o", os.devnull])
    m = re.search(r"schedule verified: peak (\d+) bytes, (\d+) recomputed ops[^\n]*", proc.stderr)
    if not m or "not compared" in m.group(0):
        raise ToolError(f"no verifier remark against the original in:\n{proc.stderr[-2000:]}")
    return m.group(0)


@dataclass
class StepResult:
    loss: float
    grads: Dict[str, np.ndarray]  # buffer name of the parameter -> gradient
    outputs: Dict[str, np.ndarray]  # every result buffer
    step_ms: float
    arena_bytes: int
    #: buffer name of a state argument -> its next value (the next_<buffer> result)
    state: Dict[str, np.ndarray] = None


def write_step_files(imported, workdir) -> Tuple[str, str, str]:
    """Writes an imported model's forward IR, weights and batch into
    `workdir`; returns the three paths (forward.mlir, weights.index,
    batch.index), as compile_and_run takes them."""
    fwd, weights, batch = (os.path.join(str(workdir), n)
                           for n in ("forward.mlir", "weights.index", "batch.index"))
    with open(fwd, "w") as f:
        f.write(imported.mlir)
    imported.write_weights(weights)
    imported.write_inputs(batch)
    return fwd, weights, batch


def compile_and_run(forward_mlir: str, workdir: str, weights: str, inputs: str,
                    strategy: Optional[str] = None, budget: Optional[int] = None,
                    steps: int = 1, tag: str = "step") -> StepResult:
    """remat-compile (autodiff, schedule, CPU object), the runner, one step."""
    obj = os.path.join(workdir, f"{tag}.o")
    header = os.path.join(workdir, f"{tag}.h")
    exe = os.path.join(workdir, f"{tag}.run")
    dump = os.path.join(workdir, f"{tag}.dump")
    os.makedirs(dump, exist_ok=True)
    cmd = [tool("remat-compile"), forward_mlir, "-o", obj, f"--header={header}"]
    if strategy:
        cmd.append(f"--strategy={strategy}")
    if budget:
        cmd.append(f"--budget={budget}")
    _run(cmd)
    # build/bin/remat-runner: tools/remat-runner/build.sh with this build's runtimes.
    _run([tool("remat-runner"), "--header", header, "--object", obj, "-o", exe])
    proc = _run([exe, "--steps", str(steps), "--weights", weights, "--inputs", inputs,
                 "--dump", dump])
    outputs, grads, state = {}, {}, {}
    with open(os.path.join(dump, "manifest.txt")) as f:
        for line in f:
            name, kind, dtype, rank, *dims = line.split()
            if kind != "result":
                continue
            arr = np.fromfile(os.path.join(dump, name + ".bin"), dtype=_NUMPY[dtype])
            outputs[name] = arr.reshape([int(d) for d in dims])
            if name.startswith("grad_"):
                grads[name[len("grad_"):]] = outputs[name]
            elif name.startswith("next_"):
                state[name[len("next_"):]] = outputs[name]
    ms = [float(x) for x in re.findall(r"perf step \d+ ms ([\d.]+)", proc.stdout)]
    arena = int(re.search(r"arena_bytes (\d+)", proc.stdout).group(1))
    return StepResult(float(outputs["loss"]), grads, outputs, min(ms), arena, state)


def torch_reference(model, inputs, target, loss,
                    dtype=None) -> Tuple[float, Dict[str, np.ndarray]]:
    """PyTorch's loss and the gradient of every parameter (by torch name) for
    one step on a copy of ``model`` (its batch-norm statistics stay as they
    are). ``dtype=torch.float64`` evaluates the copy and the float inputs in
    double precision: the exact answer that a float32 step approximates (the
    gradients come back in float64)."""
    import copy
    model = copy.deepcopy(model)
    if dtype is not None:
        model = model.to(dtype)
        inputs = [x.to(dtype) if x.is_floating_point() else x for x in inputs]
        if target.is_floating_point():
            target = target.to(dtype)
    model.zero_grad()
    value = loss(model(*inputs), target)
    value.backward()
    return float(value), {n: p.grad.detach().numpy().copy() for n, p in model.named_parameters()}


def torch_state_after_step(model, inputs) -> Dict[str, np.ndarray]:
    """The buffers (batch-norm running statistics, num_batches_tracked) of a
    copy of ``model`` after one forward in its current mode, by torch name:
    what one training step leaves in them."""
    import copy
    import torch
    model = copy.deepcopy(model)
    with torch.no_grad():
        model(*inputs)
    return {n: b.detach().numpy().copy() for n, b in model.named_buffers()}


def compare_state(imported, ref_state: Dict[str, np.ndarray], result: StepResult,
                  rtol: float = 1e-4, atol: float = 1e-5) -> Dict[str, float]:
    """Checks the next value of every state buffer against PyTorch's after one
    step (floats: |remat - torch| <= atol + rtol * max|torch|; integers
    exactly). Returns the largest absolute error per buffer (framework name);
    raises AssertionError on a mismatch or a missing state result."""
    errors, bad = {}, []
    for buf, name, _ in imported.state:
        got, want = (result.state or {}).get(buf), ref_state[name]
        if got is None:
            bad.append(f"no next value for state {name}")
            continue
        got = got.reshape(want.shape)
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        errors[name] = float(diff.max()) if diff.size else 0.0
        exact = want.dtype.kind in "iu"
        scale = float(np.abs(want).max()) if want.size else 0.0
        if (exact and errors[name] != 0) or errors[name] > atol + rtol * scale:
            bad.append(f"state {name}: max abs error {errors[name]:.3g} (largest |value| "
                       f"{scale:.3g})")
    if bad:
        raise AssertionError("; ".join(bad))
    return errors


def kink_margin(model, inputs) -> Tuple[float, str]:
    """How far the model's discrete decisions lie from float32 rounding: for
    every ReLU / ReLU6 input, the float64 distance of the closest element to
    a kink (0, and 6 for ReLU6), and for every MaxPool2d window the float64
    gap between its two largest elements (ties between zeros excepted: after
    a ReLU their gradient is 0 whichever wins), each divided by the largest
    float32-vs-float64 difference of that input. Returns the smallest ratio
    and the module it came from. Below ~1 float32 may round a decision to the
    other side, and then no float32 step (PyTorch's included) matches the
    float64 reference: the gradients differ by percents, not ulps."""
    import copy
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    kinds = (nn.ReLU, nn.ReLU6, nn.MaxPool2d)

    def record(m, xs):
        seen = []
        hooks = [mod.register_forward_pre_hook(
                     lambda mod, a, n=n: seen.append((n, mod, a[0].detach().clone())))
                 for n, mod in m.named_modules() if isinstance(mod, kinds)]
        with torch.no_grad():
            m(*xs)
        for h in hooks:
            h.remove()
        return seen

    r32 = record(copy.deepcopy(model), inputs)
    r64 = record(copy.deepcopy(model).double(),
                 [x.double() if x.is_floating_point() else x for x in inputs])
    worst = (float("inf"), "")
    for (name, mod, a32), (_, _, a64) in zip(r32, r64):
        err = float((a32.double() - a64).abs().max())
        if isinstance(mod, nn.MaxPool2d):
            k, st, pad = (F._pair(v) for v in (mod.kernel_size, mod.stride, mod.padding))
            padded = F.pad(a64, (pad[1], pad[1], pad[0], pad[0]), value=float("-inf"))
            win = F.unfold(padded, k, stride=st, dilation=mod.dilation)
            win = win.view(a64.shape[0], a64.shape[1], k[0] * k[1], -1)
            top2 = win.topk(2, dim=2).values
            gaps = (top2[:, :, 0] - top2[:, :, 1])[top2[:, :, 0] != 0]
            dist = float(gaps.min()) if gaps.numel() else float("inf")
        else:
            dist = float(a64.abs().min())
            if isinstance(mod, nn.ReLU6):
                dist = min(dist, float((a64 - 6).abs().min()))
        ratio = dist / err if err > 0 else float("inf")
        if ratio < worst[0]:
            worst = (ratio, name)
    return worst


def compare(imported, ref_loss: float, ref_grads: Dict[str, np.ndarray], result: StepResult,
            rtol: float = 1e-4, atol: float = 1e-5) -> Dict[str, float]:
    """Checks the loss and every gradient: |remat - torch| <= atol + rtol *
    max|torch| elementwise, the scale being the largest magnitude of that
    gradient (float32 sums over thousands of terms, in another order, differ
    by a few ulps of the largest terms, not of each element). Returns the
    largest absolute error per gradient (keyed by framework name) and of the
    loss; raises AssertionError on a mismatch."""
    errors = {}
    bad = []
    if abs(result.loss - ref_loss) > atol + rtol * abs(ref_loss):
        bad.append(f"loss {result.loss} vs torch {ref_loss}")
    errors["loss"] = abs(result.loss - ref_loss)
    for buf, name, _ in imported.params:
        got, want = result.grads.get(buf), ref_grads[name]
        if got is None:
            bad.append(f"no gradient for {name}")
            continue
        got = got.reshape(want.shape)
        diff = np.abs(got.astype(np.float64) - want)
        errors[name] = float(diff.max()) if diff.size else 0.0
        scale = float(np.abs(want).max()) if want.size else 0.0
        if errors[name] > atol + rtol * scale:
            i = int(np.argmax(diff))
            bad.append(f"grad {name}: max abs error {errors[name]:.3g} (largest |grad| {scale:.3g}; "
                       f"at {i}: {got.reshape(-1)[i]} vs {want.reshape(-1)[i]})")
    if bad:
        raise AssertionError("; ".join(bad))
    return errors
