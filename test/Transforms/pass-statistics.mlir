// Pass statistics (`let statistics` in Passes.td) of the passes that run on
// functions, each nested under func.func. MLIR counts statistics only when
// LLVM was built with them (assertions or LLVM_FORCE_ENABLE_STATS): Debian's
// release packages count nothing, and lit then marks this test unsupported.
// REQUIRES: pass-statistics
//
// Autodiff on @chain4 below (matmul, four tanh, mse): the seed constant,
// mse_grad, four tanh_grad and the matmul giving the gradient of %w are the
// 7 backward ops (the gradient of %x, not a parameter, is not built).
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-autodiff))' \
// RUN:   -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AUTODIFF
// AUTODIFF: RematAutodiff
// AUTODIFF-DAG: (S) {{ *}}7 backward-ops
// AUTODIFF-DAG: (S) {{ *}}1 functions-differentiated
//
// Greedy with threshold=16 on the chain of remat-rematerialize.mlir (its
// remat.plan: kept = [1, 3], recompute = [[8, 2], [10, 0]], peak 64 against
// store-all 96): one function, 2 ops recomputed, 2 values kept, 32 bytes
// saved. The verifier against the file itself compares the operands of the
// 12 ops outside recompute regions (11 nodes and the return) and matches the
// 2 recomputed ops; the two regions are opened afterwards.
// RUN: remat-opt %S/remat-rematerialize.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-rematerialize{strategy=greedy threshold=16}))' \
// RUN:   -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMAT
// REMAT: RematRematerialize
// REMAT-DAG: (S) {{ *}}32 bytes-saved
// REMAT-DAG: (S) {{ *}}1 functions-planned
// REMAT-DAG: (S) {{ *}}2 ops-recomputed
// REMAT-DAG: (S) {{ *}}2 values-kept
// RUN: remat-opt %S/remat-rematerialize.mlir --remat-rematerialize='strategy=greedy threshold=16' -o %t.mlir 2>/dev/null
// RUN: remat-opt %t.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-verify-schedule{original=%S/remat-rematerialize.mlir}))' \
// RUN:   -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=VERIFY
// VERIFY: RematVerifySchedule
// VERIFY-DAG: (S) {{ *}}12 consumers-checked
// VERIFY-DAG: (S) {{ *}}1 functions-verified
// VERIFY-DAG: (S) {{ *}}2 recomputed-ops-checked
// RUN: remat-opt %t.mlir --pass-pipeline='builtin.module(func.func(remat-open-recompute))' \
// RUN:   -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPEN
// OPEN: RematOpenRecompute
// OPEN: (S) {{ *}}2 regions-opened
//
// The memory report covers the one defined function; the comparison plans
// it with eight strategies (store-all, sqrt, greedy, logn, revolve, chain-opt
// at the memory of sqrt and at the least memory, mincut).
// RUN: remat-opt %S/remat-rematerialize.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(remat-memory-report,remat-compare-strategies))' \
// RUN:   -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORTS
// REPORTS-DAG: RematMemoryReport
// REPORTS-DAG: (S) {{ *}}1 functions-reported
// REPORTS-DAG: RematCompareStrategies
// REPORTS-DAG: (S) {{ *}}1 functions-compared
// REPORTS-DAG: (S) {{ *}}8 plans

func.func @chain4(%x: tensor<16x16xf32>, %w: tensor<16x16xf32> {remat.param},
                  %t: tensor<16x16xf32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = remat.tanh %0 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = remat.tanh %1 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %3 = remat.tanh %2 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %4 = remat.tanh %3 : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %5 = remat.mse %4, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
  return %5 : tensor<f32>
}
