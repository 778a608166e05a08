"""bench/step_profile.py: the category of a perf sample and the CPU ms per
step of each thread, from `perf script -F tid,time,ip,sym,dso` text."""

import importlib.util
import os

from conftest import REPO_ROOT

spec = importlib.util.spec_from_file_location(
    "bench_step_profile", os.path.join(REPO_ROOT, "bench", "step_profile.py"))
profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile)

RUNNER = "/tmp/x/resnet.run"
COMPILED = {"forward", "forward_arena", "forward_arena.extracted.7",
            "forward_arena..omp_par.3"}

# Two threads, 1,000 Hz: a load before the step (left out), then the main
# thread in a serial loop, a region body on both, a runtime GEMM, OpenBLAS,
# the worker spinning in libomp, and a result write after (left out).
PERF = """\
 100 10.000: 55aa remat_runner::loadFloat (/tmp/x/resnet.run)
 100 10.001: 55ab forward_arena.extracted.7 (/tmp/x/resnet.run)
 100 10.002: 55ac forward_arena.extracted.7 (/tmp/x/resnet.run)
 100 10.003: 55ad forward_arena..omp_par.3 (/tmp/x/resnet.run)
 101 10.003: 55ad forward_arena..omp_par.3 (/tmp/x/resnet.run)
 100 10.004: 55ae remat::runtime::smallGemm (/tmp/x/resnet.run)
 101 10.004: 7f00 sgemm_kernel_SKYLAKEX (/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so)
 101 10.005: 7f01 [unknown] (/usr/lib/llvm-19/lib/libomp.so.5)
 100 10.005: ffff __schedule ([kernel.kallsyms])
 100 10.006: 55af forward_arena (/tmp/x/resnet.run)
 100 10.007: 55b0 remat_runner::storeFloat (/tmp/x/resnet.run)
"""


def test_category():
    def category(symbol, dso=RUNNER):
        return profile.category(symbol, dso, RUNNER, COMPILED)
    assert category("forward_arena.extracted.7") == profile.COMPILED_SERIAL
    assert category("forward") == profile.COMPILED_SERIAL
    assert category("forward_arena..omp_par.3") == profile.COMPILED_PARALLEL
    assert category("remat_cpu_sgemm") == profile.RUNTIME
    assert category("(anonymous namespace)::unfold") == profile.RUNTIME
    # A function of the runner that the compiled object does not define.
    assert category("forward_arena.extracted.12") == profile.RUNTIME
    assert category("remat_runner::loadFloat") == profile.RUNNER
    assert category("__memset_avx512_unaligned_erms",
                    "/usr/lib/x86_64-linux-gnu/libc.so.6") == profile.LIBC
    assert category("[unknown]", "/usr/lib/llvm-19/lib/libomp.so.5") == \
        profile.OPENMP


def test_summarise():
    samples = profile.parse_samples(PERF, RUNNER, COMPILED)
    assert len(samples) == 11
    # 1 step at 1,000 Hz: one sample is 1 ms.
    rows = profile.summarise(samples, steps=1, freq=1000)
    (main, cats, functions), (worker, wcats, wfunctions) = rows
    assert (main, worker) == (100, 101)
    assert cats[profile.COMPILED_SERIAL] == 3.0
    assert cats[profile.COMPILED_PARALLEL] == 1.0
    assert cats[profile.RUNTIME] == 1.0
    assert cats[profile.KERNEL] == 1.0
    assert cats[profile.RUNNER] == 0.0
    assert wcats[profile.BLAS] == 1.0 and wcats[profile.OPENMP] == 1.0
    assert functions["forward_arena.extracted.7"] == 2.0
    assert wfunctions["forward_arena..omp_par.3"] == 1.0
    table = profile.table([(2, rows)])
    assert "| compiled loops, serial | 3.00 | 0.00 |" in table
    assert "| **total** | **6.00** | **3.00** |" in table


def test_no_compiled_code():
    samples = profile.parse_samples(PERF.splitlines()[0] + "\n", RUNNER,
                                    COMPILED)
    assert profile.summarise(samples, steps=1, freq=1000) is None


# With srcline (remat-compile -g): the input line under each sample.
PERF_LINES = """\
 100 10.001: 55ab forward_arena.extracted.7 (/tmp/x/resnet.run)
  model.mlir:12
 100 10.002: 55ad forward_arena..omp_par.3 (/tmp/x/resnet.run)
  model.mlir:14
 101 10.002: 55ad forward_arena..omp_par.3 (/tmp/x/resnet.run)
  model.mlir:14
 101 10.003: 55ae remat::runtime::smallGemm (/tmp/x/resnet.run)
  Gemm.cpp:80
 100 10.004: 55ad forward_arena..omp_par.3 (/tmp/x/resnet.run)
  model.mlir:0
"""


def test_per_line():
    samples = profile.parse_samples(PERF_LINES, RUNNER, COMPILED)
    assert [sample[4] for sample in samples] == [12, 14, 14, 0, 0]
    lines = profile.per_line(samples, steps=1, freq=1000)
    # Serial on the main thread / in regions on it / in regions elsewhere.
    assert lines == {12: [1.0, 0.0, 0.0], 14: [0.0, 1.0, 1.0],
                     0: [0.0, 1.0, 0.0]}
    assert profile.op_of("    %13:3 = remat.batch_norm %12, %w {e = 1.0}") \
        == "%13:3 = remat.batch_norm"
    assert profile.op_of("  remat.yield %a") == "remat.yield"
