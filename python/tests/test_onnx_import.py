"""ONNX models end to end: torch.onnx.export (training mode, opset 14 and
17) of the MLP, CNN and transformer families, remat.onnx_import with a loss,
a budgeted schedule (half the store-all peak, or the smallest the planner
can meet) checked by --remat-verify-schedule, compiled for the CPU and run
on the initializers' values; the loss and every gradient must match
torch.autograd of the exported module on the same batch.
"""

import os

import numpy as np
import pytest
import torch

from remat import aten, onnx_import, pipeline, zoo

pytestmark = pytest.mark.skipif(not os.access(pipeline.tool("remat-compile"), os.X_OK),
                                reason="remat-compile not built")


def _export(name, tmp_path, opset):
    model, inputs, target, loss = zoo.build(name)
    path = str(tmp_path / f"{name}.onnx")
    torch.onnx.export(model, tuple(inputs), path, opset_version=opset,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["input"], output_names=["output"])
    return model, inputs, target, loss, path


@pytest.mark.parametrize("name,opset", [("mlp", 13), ("cnn", 14), ("transformer", 17)])
def test_onnx_family_matches_torch(name, opset, tmp_path):
    model, inputs, target, loss, path = _export(name, tmp_path, opset)
    imported = onnx_import.import_onnx(path, "cross-entropy", target.numpy(),
                                       {"input": inputs[0].numpy()},
                                       params=[n for n, _ in model.named_parameters()])
    assert [n for _, n, _ in imported.params] == [n for n, _ in model.named_parameters()]
    fwd = str(tmp_path / "forward.mlir")
    with open(fwd, "w") as f:
        f.write(imported.mlir)
    weights, batch = str(tmp_path / "w.index"), str(tmp_path / "b.index")
    imported.write_weights(weights)
    imported.write_inputs(batch)
    ref_loss, ref_grads = pipeline.torch_reference(model, inputs, target, loss)
    peak = pipeline.store_all_peak(fwd, str(tmp_path))
    budget = pipeline.feasible_budget(fwd, peak // 2)
    assert budget < peak
    remark = pipeline.verify_schedule(fwd, None, budget)
    result = pipeline.compile_and_run(fwd, str(tmp_path), weights, batch, None, budget)
    errors = pipeline.compare(imported, ref_loss, ref_grads, result)
    print(f"onnx {name} opset {opset}: {remark}; loss error {errors['loss']:.3g}, max gradient "
          f"error {max(v for k, v in errors.items() if k != 'loss'):.3g}")


def test_onnx_unsupported_op_is_named(tmp_path):
    model, inputs, target, loss = zoo.build("lstm")
    path = str(tmp_path / "lstm.onnx")
    torch.onnx.export(model, tuple(inputs), path, opset_version=14,
                      training=torch.onnx.TrainingMode.TRAINING, input_names=["input"])
    with pytest.raises(aten.UnsupportedOp, match=r"ONNX LSTM \(node '/lstm/LSTM'\): no remat mapping"):
        onnx_import.import_onnx(path, "cross-entropy", target.numpy(), {"input": inputs[0].numpy()})


def test_onnx_inference_batch_norm_is_an_error(tmp_path):
    model, inputs, target, loss = zoo.build("cnn")
    model.eval()
    path = str(tmp_path / "cnn.onnx")
    torch.onnx.export(model, tuple(inputs), path, opset_version=14,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                      input_names=["input"])
    with pytest.raises(aten.UnsupportedOp, match="BatchNormalization .*running statistics"):
        onnx_import.import_onnx(path, "cross-entropy", target.numpy(), {"input": inputs[0].numpy()})
