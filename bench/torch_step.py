"""Times PyTorch's training step for a remat example model (bench/perf.py).

usage: torch_step.py MODEL.mlir DUMP_DIR --threads T --steps N

Evaluates the forward model eagerly in float32 with torch
(python/tests/torch_interp.py: the same ops the dialect defines) on the inputs
and parameters a `runner --dump` wrote (loaded as check_reference.py loads
them), then differentiates the loss with
autograd: the same model and weights as the compiled step. Prints one line:

  torch median_ms <> min_ms <> max_rss_kib <> threads <> blas <library>

Dropout is evaluated as the identity on the torch side (torch_interp has
no masks), which makes PyTorch's step slightly cheaper than the compiled
one. The step time excludes the optimizer update, as the runner's does.
"""

import argparse
import os
import resource
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
sys.path.insert(0, os.path.join(ROOT, "test", "Driver", "Inputs"))


def blas_library():
    """The BLAS shared library mapped into this process."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line.lower()}
    return ",".join(sorted(os.path.realpath(p) for p in paths)) or "none"


def time_and_report(step, steps):
    """Runs `step` (one forward, loss and backward) steps + 1 times, the
    first as a warm-up, and prints the result line of the module docstring.
    torch_zoo_step.py uses it too."""
    import torch

    times = []
    for _ in range(steps + 1):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    times = times[1:]  # the first step warms up
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"torch median_ms {statistics.median(times):.3f} "
          f"min_ms {min(times):.3f} max_rss_kib {rss} "
          f"threads {torch.get_num_threads()} blas {blas_library()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("dump")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    # OpenBLAS (torch's BLAS through libblas.so.3) reads this at load time.
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch
    import torch_interp
    from check_reference import load_step

    torch.set_num_threads(args.threads)
    fn, _, inputs, names = load_step(args.model, args.dump, torch.float32)
    for op in fn.ops:
        if op.name == "remat.dropout":
            # torch_interp evaluates dropout only as the identity.
            op.attrs["rate"] = 0.0
    params = [inputs[name] for name in names]

    time_and_report(
        lambda: torch.autograd.grad(torch_interp.evaluate(fn, inputs), params),
        args.steps)


if __name__ == "__main__":
    main()
