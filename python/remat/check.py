"""One command per route: a PyTorch model (directly, or through an ONNX
export) -> remat forward IR and its weights -> autodiff and a budgeted
schedule (checked by --remat-verify-schedule) -> a compiled CPU step run on
the model's weights and batch -> the loss and every parameter gradient
compared with torch.autograd on the same weights and batch.

    python3 -m remat.check --zoo resnet18 --route torch --budget-fraction 0.5
    python3 -m remat.check --model my.py:build --route onnx --strategy sqrt

Exit status 0 when everything agrees within float32 tolerance.
"""

import argparse
import os
import sys
import tempfile



def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="remat-check", description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="FILE.py:FUNCTION returning (module, inputs, target, loss)")
    src.add_argument("--zoo", help="a bundled model (remat.zoo.MODELS)")
    p.add_argument("--route", choices=("torch", "onnx"), default="torch")
    p.add_argument("--opset", type=int, default=17, help="ONNX opset of the export (13-17)")
    p.add_argument("--strategy", help="a fixed strategy (store-all, sqrt, greedy, ...)")
    p.add_argument("--budget", type=int, help="activation budget in bytes")
    p.add_argument("--budget-fraction", type=float, default=None,
                   help="budget as a fraction of the store-all peak (default 0.5 "
                        "unless --strategy or --budget is given)")
    p.add_argument("--workdir", help="keep the files here (default: a temporary directory)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    args = p.parse_args(argv)

    import torch
    from . import pipeline, torch_import
    from .aten import UnsupportedOp
    if args.zoo:
        from . import zoo
        model, inputs, target, loss = zoo.build(args.zoo)
    else:
        model, inputs, target, loss = torch_import._load_spec(args)
    workdir = args.workdir or tempfile.mkdtemp(prefix="remat-check-")
    os.makedirs(workdir, exist_ok=True)
    try:
        if args.route == "torch":
            imported = torch_import.import_module(model, inputs, target, loss)
        else:
            from . import onnx_import
            path = os.path.join(workdir, "model.onnx")
            torch.onnx.export(model, tuple(inputs), path, opset_version=args.opset,
                              training=torch.onnx.TrainingMode.TRAINING,
                              do_constant_folding=False,
                              input_names=[f"input{i}" for i in range(len(inputs))])
            kind = "cross-entropy" if not target.is_floating_point() else "mse"
            imported = onnx_import.import_onnx(
                path, kind, target.numpy(),
                {f"input{i}": x.numpy() for i, x in enumerate(inputs)},
                params=[n for n, _ in model.named_parameters()])
    except UnsupportedOp as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    fwd = os.path.join(workdir, "forward.mlir")
    with open(fwd, "w") as f:
        f.write(imported.mlir)
    weights, batch = os.path.join(workdir, "weights.index"), os.path.join(workdir, "batch.index")
    imported.write_weights(weights)
    imported.write_inputs(batch)

    peak = pipeline.store_all_peak(fwd, workdir)
    budget = args.budget
    fraction = args.budget_fraction
    if fraction is None and budget is None and args.strategy is None:
        fraction = 0.5
    if fraction is not None:
        wanted = int(peak * fraction)
        budget = pipeline.feasible_budget(fwd, wanted)
        if budget != wanted:
            print(f"note: {wanted} B ({fraction:g} of store-all) is below what the planner "
                  f"can meet; using its smallest feasible budget {budget} B")
    remark = pipeline.verify_schedule(fwd, args.strategy, budget)
    result = pipeline.compile_and_run(fwd, workdir, weights, batch, args.strategy, budget)
    ref_loss, ref_grads = pipeline.torch_reference(model, inputs, target, loss)
    print(f"model: {len(imported.params)} parameters; store-all peak {peak} B; "
          f"{args.strategy or 'auto'} budget {budget or '-'}: {remark}")
    print(f"compiled step: {result.step_ms:.3f} ms, arena {result.arena_bytes} B; files in {workdir}")
    print(f"loss: remat {result.loss:.9g} torch {ref_loss:.9g}")
    try:
        errors = pipeline.compare(imported, ref_loss, ref_grads, result, args.rtol, args.atol)
    except AssertionError as e:
        for item in str(e).split("; "):
            print(f"MISMATCH {item}")
        return 1
    worst = max((v for k, v in errors.items() if k != "loss"), default=0.0)
    print(f"gradients: {len(imported.params)} compared, max abs error {worst:.3g} "
          f"(tolerance {args.atol:g} + {args.rtol:g} x the largest |gradient| of each): all agree")
    if imported.state:
        try:
            state = pipeline.compare_state(
                imported, pipeline.torch_state_after_step(model, inputs), result,
                args.rtol, args.atol)
        except AssertionError as e:
            for item in str(e).split("; "):
                print(f"MISMATCH {item}")
            return 1
        print(f"state: {len(state)} buffers compared with PyTorch's after one step, max abs "
              f"error {max(state.values()):.3g}: all agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
