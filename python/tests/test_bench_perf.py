"""The recompute columns of bench/perf.py: parsed from remat-compile's
remarks and computed as the table prints them."""

import importlib.util
import os

from conftest import REPO_ROOT

spec = importlib.util.spec_from_file_location(
    "bench_perf", os.path.join(REPO_ROOT, "bench", "perf.py"))
perf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(perf)

# remat-compile's remarks for chain_n16 under sqrt (test/Driver/
# time-estimate.test holds how they are computed).
REMARKS = (
    "chain_n16.mlir:2:1: remark: plan 'sqrt' (segments=6): peak activation "
    "bytes 288 (store-all 576, ratio 0.500), total with arguments 2404, "
    "recompute cost 816 (70.8% of forward), 25 recomputed ops, planned in "
    "0.020 ms; peak in the rewritten IR 288 bytes\n"
    "chain_n16.mlir:2:1: remark: time estimate: step without recompute "
    "0.012 ms (3273 flops, 8744 bytes), recompute 0.003 ms (816 flops, 2304 "
    "bytes) in 25 ops: 26.0% of the step by time, 24.9% by flops (one thread "
    "at 1 GFLOP/s and 1 GB/s)\n")


def test_parse_plan_remarks():
    peak, planned, estimated = perf.parse_plan_remarks(REMARKS)
    assert peak == 288
    assert planned == 70.8
    assert estimated == (26.0, 24.9)


def test_parse_without_remarks():
    assert perf.parse_plan_remarks("") == (None, None, None)


def test_columns():
    # 45.43 ms against store-all's 38.88 ms: +16.8% of the step.
    assert round(perf.overhead_percent(45.43, 38.88), 1) == 16.8
    assert perf.overhead_percent(10.0, 10.0) == 0
    assert perf.estimate_cell((26.0, 24.9)) == "+26.0 / +24.9"
    assert perf.estimate_cell((0.0, 0.0)) == "0 / 0"
    assert perf.estimate_cell(None) == "-"
    assert perf.percent(None) == "-"
    assert perf.percent(-7.14) == "-7.1"


def test_short_steps_run_more_steps():
    # A 28 ms step runs 0.5 s worth, a 100 ms one keeps --steps, a 0.5 ms one
    # 0.5 s worth, a 0.01 ms one stops at the cap, a step of 0 ms (not
    # measured) keeps --steps, and the cap never lowers --steps.
    assert perf.steps_for(28.0, 10, 0.5) == 18
    assert perf.steps_for(100.0, 10, 0.5) == 10
    assert perf.steps_for(0.5, 10, 0.5) == 1001
    assert perf.steps_for(0.01, 10, 0.5) == perf.MAX_STEPS
    assert perf.steps_for(0.0, 10, 0.5) == 10
    assert perf.steps_for(0.01, 3000, 0.5) == 3000


# The calibrated remark for chain_n16 under sqrt with every class at 1e6
# per second (test/Driver/time-model.test derives the figures).
CALIBRATED = (
    "chain_n16.mlir:2:1: remark: calibrated time estimate: step without "
    "recompute 5.7360 ms, recompute 1.6000 ms in 25 ops: 27.9% of the step "
    "(table time-model-flat.json)\n")


def test_parse_calibrated_remark():
    assert perf.parse_calibrated_remark(REMARKS + CALIBRATED) == (
        5.736, 1.6, 27.9)
    assert perf.parse_calibrated_remark(REMARKS) is None


def test_calibrated_cell():
    # Measured 1.02 ms more than store-all, 0.95 ms predicted.
    assert perf.calibrated_cell(1.02, (5.7, 0.95, 16.7)) == "+1.02 / +0.95"
    assert perf.calibrated_cell(None, (5.7, 0.0, 0.0)) == "- / 0"
    assert perf.calibrated_cell(0.5, None) == "-"


def test_tracking_errors():
    rows = [
        # store-all and rows without a measured figure are skipped.
        ("m", "store-all", 1, 0.0, {"a": 0.0, "b": 0.0}),
        ("m", "sqrt", 1, None, {"a": 50.0, "b": 50.0}),
        # a: off by 2 and 6 (mean 4, worst the budget); b: by 10 and 1.
        ("m", "sqrt", 1, 20.0, {"a": 22.0, "b": 10.0}),
        ("m", "budget", 2, 5.0, {"a": 11.0, "b": 6.0}),
        # an estimator with no figure for a row leaves that row out.
        ("n", "sqrt", 1, 30.0, {"a": 30.0, "b": None}),
    ]
    errors = perf.tracking_errors(rows)
    assert errors["a"] == (8.0 / 3, 3, ("m", "budget", 2, 5.0, 11.0))
    assert errors["b"] == (5.5, 2, ("m", "sqrt", 1, 20.0, 10.0))
    lines = perf.tracking_lines(errors)
    assert lines == [
        "- a: mean absolute error 2.7 points over 3 rows; worst m budget "
        "2T: +11.0 predicted, +5.0 measured",
        "- b: mean absolute error 5.5 points over 2 rows; worst m sqrt 1T: "
        "+10.0 predicted, +20.0 measured"]
    assert perf.tracking_errors([]) == {}
