"""Generated models parse and verify with remat-opt (skipped until it is built).

Set REMAT_OPT to use a binary other than build/bin/remat-opt.
"""

import os
import re
import subprocess

import pytest

from conftest import REPO_ROOT
from remat_models import MODELS

REMAT_OPT = os.environ.get("REMAT_OPT", os.path.join(REPO_ROOT, "build", "bin", "remat-opt"))
pytestmark = pytest.mark.skipif(not os.access(REMAT_OPT, os.X_OK),
                                reason=f"{REMAT_OPT} not built")

CONFIGS = [
    ("mlp", {}), ("mlp", {"depth": 3, "dtype": "bf16", "label_dtype": "i32"}),
    ("chain", {"length": 6, "act": "alternate"}), ("chain", {"dtype": "f16"}),
    ("resnet", {}), ("resnet", {"blocks": 5, "stages": 3, "stem_pool": True, "dtype": "f16"}),
    ("gpt", {}), ("gpt", {"dropout": 0.0, "tie_embeddings": True, "dtype": "bf16"}),
    ("lstm", {}), ("lstm", {"loss": "ce", "steps": 3, "label_dtype": "i32"}),
]


def remat_opt(path, *flags):
    return subprocess.run([REMAT_OPT, str(path), *flags], capture_output=True, text=True)


def op_counts(text):
    counts = {}
    for name in re.findall(r"=\s*\"?((?:remat|arith)\.[a-z_0-9]+)", text):
        counts[name] = counts.get(name, 0) + 1
    return counts


@pytest.mark.parametrize("name", sorted(f for f in os.listdir(os.path.join(REPO_ROOT, "examples"))
                                        if f.endswith(".mlir")))
def test_examples_parse(name):
    proc = remat_opt(os.path.join(REPO_ROOT, "examples", name))
    assert proc.returncode == 0, proc.stderr


def _config_params():
    for i, (kind, kwargs) in enumerate(CONFIGS):
        # 16-bit models keep an f32 loss (mixed precision); the verifier
        # accepts any float scalar loss type.
        yield pytest.param(kind, kwargs, id=f"{kind}-{i}")


@pytest.mark.parametrize("kind,kwargs", list(_config_params()))
def test_generated_models_verify_and_round_trip(tmp_path, kind, kwargs):
    func = MODELS[kind][0](**kwargs)
    src = tmp_path / "in.mlir"
    src.write_text(func.text())
    proc = remat_opt(src)
    assert proc.returncode == 0, proc.stderr
    want = {k: v for k, v in func.op_counts().items()}
    assert op_counts(proc.stdout) == want
    assert proc.stdout.count("remat.param") == len(func.params)
    again = tmp_path / "again.mlir"
    again.write_text(proc.stdout)
    proc2 = remat_opt(again)
    assert proc2.returncode == 0, proc2.stderr
    assert proc2.stdout == proc.stdout
    generic = remat_opt(src, "--mlir-print-op-generic")
    assert generic.returncode == 0, generic.stderr
    assert op_counts(generic.stdout) == want
