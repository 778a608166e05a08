"""bench/calibrate_time.py's pure parts: op sizes, the calibration step's
text, pooling of points and the table's format (the C++ reader's test is
unittests/Driver/TimeModelTest.cpp)."""

import importlib.util
import json
import os

from conftest import REPO_ROOT

spec = importlib.util.spec_from_file_location(
    "bench_calibrate_time", os.path.join(REPO_ROOT, "bench",
                                         "calibrate_time.py"))
calibrate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(calibrate)


def test_sizes():
    # A 4x16 by 16x32 GEMM: 2 * 4 * 32 * 16 = 4096 flops for each of the
    # three; the forward moves (64 + 512 + 128) * 4 bytes.
    ops = calibrate.gemm_ops(4, 16, 32)
    assert [op.flops for op in ops] == [4096.0] * 3
    assert ops[0].bytes() == (64 + 512 + 128) * 4
    # conv 8x16x32x32 -> 16 channels, 3x3, padding 1: 2 * (8 * 16 * 32 * 32)
    # * 16 * 9 flops, the same for both gradients (RematCost.cpp).
    conv = calibrate.conv_ops(8, 16, 32, 16, 3, 1, 1)
    assert [op.flops for op in conv] == [2.0 * 8 * 16 * 32 * 32 * 16 * 9] * 3
    # depthwise: C / groups = 1 input channel per filter.
    depthwise = calibrate.conv_ops(8, 8, 16, 8, 3, 1, 1, groups=8)
    assert depthwise[0].flops == 2.0 * 8 * 8 * 16 * 16 * 9
    # dropout's seed is an i64 scalar: 8 bytes.
    dropout = calibrate.elementwise_ops(512)[3]
    assert dropout.bytes() == 512 * 4 * 2 + 8


def test_step_module():
    text = calibrate.step_module(calibrate.gemm_ops(4, 16, 32)[1:2], 2)
    assert text == (
        "func.func @calibrate(%a0_0_0: tensor<4x16xf32>, "
        "%a0_0_1: tensor<4x32xf32>, %a1_0_0: tensor<4x16xf32>, "
        "%a1_0_1: tensor<4x32xf32>) -> (tensor<16x32xf32>, "
        "tensor<16x32xf32>) attributes {remat.training_step} {\n"
        "  %r0_0_0 = remat.matmul %a0_0_0, %a0_0_1 {transpose_a} : "
        "(tensor<4x16xf32>, tensor<4x32xf32>) -> tensor<16x32xf32>\n"
        "  %r1_0_0 = remat.matmul %a1_0_0, %a1_0_1 {transpose_a} : "
        "(tensor<4x16xf32>, tensor<4x32xf32>) -> tensor<16x32xf32>\n"
        "  return %r0_0_0, %r1_0_0 : tensor<16x32xf32>, tensor<16x32xf32>\n"
        "}\n")
    # Several results: a parenthesised result type list. 4096 elements of
    # batch 8, 16 channels: isqrt(4096 / 128) = 5, so 8x16x5x5.
    grad = calibrate.step_module(calibrate.reduction_ops(4096)[1:2], 1)
    assert "-> (tensor<8x16x5x5xf32>, tensor<16xf32>, tensor<16xf32>)\n" \
        in grad


def test_copies_for():
    # 3 GEMMs of 4096 flops at the 30 GFLOP/s guess: 0.41 us; 0.4 ms of
    # them is more than the cap.
    assert calibrate.copies_for("gemm", calibrate.gemm_ops(4, 16, 32)) == \
        calibrate.MAX_COPIES
    assert calibrate.copies_for(
        "gemm", calibrate.gemm_ops(512, 1024, 1024)) == 1


def test_merge_points_and_table():
    # Equal sizes pool (total size over total seconds), then sorted.
    points = calibrate.merge_points([(100.0, 1e-6), (10.0, 1e-6),
                                     (100.0, 3e-6)])
    assert points == [[10.0, 1e7], [100.0, 200.0 / 4e-6]]
    text = calibrate.format_table({"format": "remat-time-model-1",
                                   "threads": 1,
                                   "classes": {"gemm": points}})
    table = json.loads(text)
    assert table["classes"]["gemm"] == [[10.0, 1e7], [100.0, 5e7]]
    assert table["format"] == "remat-time-model-1"
