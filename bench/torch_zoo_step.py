"""Times PyTorch's training step for an imported zoo model (bench/perf.py).

usage: torch_zoo_step.py NAME --threads T --steps N
       torch_zoo_step.py NAME --export BASE

--export imports NAME with remat.torch_import and writes BASE.mlir (the
forward model), BASE-weights.index and BASE-inputs.index (for the runner's
--weights and --inputs), in this process rather than in bench/perf.py, whose
children would otherwise inherit the torch import's peak RSS.

Otherwise builds NAME from python/remat/zoo.py (fixed seeds: the weights and batch
that `remat.torch_import` exported for the compiled step) and times the
module's own forward, loss and `torch.autograd.grad` of the parameters,
eagerly in float32 in training mode (batch norm on batch statistics, as the
compiled step computes it). Prints one line:

  torch median_ms <> min_ms <> max_rss_kib <> threads <> blas <library>
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--export")
    args = parser.parse_args()
    if args.export:
        from remat import torch_import, zoo
        module, inputs, target, loss = zoo.build(args.name)
        imported = torch_import.import_module(module, inputs, target, loss)
        with open(args.export + ".mlir", "w") as f:
            f.write(imported.mlir)
        imported.write_weights(args.export + "-weights.index")
        imported.write_inputs(args.export + "-inputs.index")
        return
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torch
    from remat import zoo
    from torch_step import time_and_report

    torch.set_num_threads(args.threads)
    model, inputs, target, loss_fn = zoo.build(args.name)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    time_and_report(
        lambda: torch.autograd.grad(loss_fn(model(*inputs), target), params),
        args.steps)

if __name__ == "__main__":
    main()
