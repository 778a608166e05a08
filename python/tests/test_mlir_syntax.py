"""Stock mlir-opt (no remat dialect) parses the generated text in generic form."""

import os
import shutil
import subprocess

import pytest

from remat_models import MODELS
from remat_models.textcheck import to_generic

MLIR_OPT = os.environ.get("MLIR_OPT") or shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt"
pytestmark = pytest.mark.skipif(not os.access(MLIR_OPT, os.X_OK), reason="mlir-opt not found")


def test_to_generic_rewrites_ops_only():
    text = MODELS["gpt"][0](layers=1).text()
    generic = to_generic(text)
    assert '= "remat.matmul"(%3, %h0_wq) : (' in generic
    assert '= "remat.matmul"(%7, %11) {transpose_b} : (' in generic
    assert "arith.constant dense<0.25> : tensor<f32>" in generic
    assert generic.count("\n") == text.count("\n")


@pytest.mark.parametrize("kind,kwargs", [
    ("mlp", {"depth": 3}), ("chain", {}), ("resnet", {"stages": 2, "stem_pool": True}),
    ("gpt", {}), ("gpt", {"dtype": "bf16", "tie_embeddings": True}), ("lstm", {}),
    ("lstm", {"dtype": "f16", "loss": "ce", "label_dtype": "i32"}),
])
def test_generic_form_parses_with_stock_mlir_opt(tmp_path, kind, kwargs):
    func = MODELS[kind][0](**kwargs)
    path = tmp_path / "g.mlir"
    path.write_text(to_generic(func.text()))
    proc = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count('"remat.') == sum(v for k, v in func.op_counts().items()
                                              if k.startswith("remat."))
    assert proc.stdout.count("remat.param") == len(func.params)
