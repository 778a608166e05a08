// RUN: remat-opt %s -split-input-file -verify-diagnostics --remat-verify-schedule=original=%S/Inputs/remat-verify-schedule-original.mlir
// Without the original only the structural checks run: the first five
// mutants and the swapped returns are then accepted (as every one of them was
// before translation validation), the dropout ones fail the clone check.
// RUN: not remat-opt %s -split-input-file --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOORIG
// An original that cannot be read is an error, not a silent fallback.
// RUN: not remat-opt %s -split-input-file --remat-verify-schedule=original=%t.does-not-exist.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: could not open input file {{.*}}does-not-exist.mlir
// MISSING: error: cannot read the original step from '{{.*}}does-not-exist.mlir'

// Translation validation: each function below is a real rewrite of a
// training step in Inputs/remat-verify-schedule-original.mlir (the chain by
// --remat-rematerialize=strategy=greedy, the dropout step by strategy=logn),
// mutated by hand. Every mutant still passes the MLIR verifiers and the
// structural checks (every recomputed op a clone of an original op, the peak);
// with the original given, the verifier names the consumer, the operand and
// the value it should read (an op of the original file, by location).

// NOORIG-COUNT-2: remark: schedule verified: {{.*}}not compared with the original
// NOORIG-COUNT-6: remark: schedule verified: {{.*}}not compared with the original
// NOORIG: remark: schedule verified: {{.*}}not compared with the original
// NOORIG: remark: schedule verified: {{.*}}not compared with the original
// NOORIG: error: recomputed op 'remat.dropout' is not a clone of any original op
// NOORIG: error: recomputed op 'remat.dropout' is not a clone of any original op
// NOORIG: remark: schedule verified: {{.*}}not compared with the original
// NOORIG: remark: schedule verified: {{.*}}not compared with the original
// NOORIG-NOT: remark: schedule verified

// The rewrite as --remat-rematerialize=strategy=greedy made it: verified.
// expected-remark @below {{schedule verified: peak 160 bytes, 9 recomputed ops; every value its 33 ops outside recompute regions read (the return included) equals the original's}}
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The dropout step as --remat-rematerialize=strategy=logn made it: the region
// recomputes the first dropout from the same seed and rate (the same mask).
// expected-remark @below {{schedule verified: peak 128 bytes, 3 recomputed ops; every value its 17 ops outside recompute regions read (the return included) equals the original's}}
func.func @dropout(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.dropout %0, %arg2 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %2 = remat.tanh %1 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = remat.matmul %2, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %4 = remat.dropout %3, %arg3 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.mse %5, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %7 = remat.mse_grad %5, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %8 = remat.tanh_grad %7, %5 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %9 = remat.dropout %8, %arg3 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.recompute(%arg0, %arg4, %arg2) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<i64>) -> tensor<2x4xf32> {
  ^bb0(%arg6: tensor<2x4xf32>, %arg7: tensor<4x4xf32>, %arg8: tensor<i64>):
    %16 = remat.matmul %arg6, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %17 = remat.dropout %16, %arg8 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
    %18 = remat.tanh %17 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %18 : tensor<2x4xf32>
  }
  %12 = remat.matmul %11, %9 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %13 = remat.tanh_grad %10, %11 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %14 = remat.dropout %13, %arg2 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %15 = remat.matmul %arg0, %14 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %6, %15, %12 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Mutant 1: the two yields of the second region swapped (same types): the
// weight gradient of layer 5 reads the activation of layer 3.
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %36, %34 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  // expected-error-re @below {{operand #0 of 'remat.matmul' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:13:8 in the original, but it is equal to result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:11:8 in the original}}
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Mutant 2: the first region yields its block argument (the input it
// captured) instead of the value it recomputed.
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %arg8 : tensor<2x4xf32>
  }
  // expected-error-re @below {{operand #0 of 'remat.mse_grad' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:17:9 in the original, but it is equal to result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:15:8 in the original}}
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Mutant 3: the last op of the third region dropped, so it yields the
// value before it (every remaining op is still a clone of an original).
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  // expected-error-re @below {{operand #0 of 'remat.matmul' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:9:8 in the original, but it is equal to result #0 of 'remat.matmul' at {{.*}}Inputs/remat-verify-schedule-original.mlir:8:8 in the original}}
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Mutant 4: the second region's inputs shifted one layer up: it recomputes
// layers 4 and 5 instead of 3 and 4, every op still a clone of an original.
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%6, %arg6) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  // expected-error-re @below {{operand #0 of 'remat.matmul' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:13:8 in the original, but it is equal to result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:15:8 in the original}}
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Mutant 5: a backward op reads the other result of a recompute region.
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  // expected-error-re @below {{operand #1 of 'remat.tanh_grad' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:13:8 in the original, but it is equal to result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:11:8 in the original}}
  %22 = remat.tanh_grad %19, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Two returned gradients of the same type swapped.
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  // expected-error-re @below {{operand #5 of 'func.return' is not the value the original step reads: it should be result #0 of 'remat.matmul' at {{.*}}Inputs/remat-verify-schedule-original.mlir:26:9 in the original, but it is equal to result #0 of 'remat.matmul' at {{.*}}Inputs/remat-verify-schedule-original.mlir:23:9 in the original}}
  return %12, %33, %31, %28, %24, %17, %21 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A backward op outside the regions lost an attribute (the shapes still
// agree).
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // expected-error-re @below {{'remat.matmul' does not correspond to op #16 of the original step, 'remat.matmul' at {{.*}}Inputs/remat-verify-schedule-original.mlir:22:9: it lacks the original's attribute 'transpose_b' (a rewrite keeps every original op, in order, and only adds remat.recompute regions)}}
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// An extra op outside the regions.
func.func @chain(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<4x4xf32> {remat.param}, %arg3: tensor<4x4xf32> {remat.param}, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}, %arg6: tensor<4x4xf32> {remat.param}, %arg7: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.tanh %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.matmul %1, %arg3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %3 = remat.tanh %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = remat.matmul %3, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.matmul %5, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %7 = remat.tanh %6 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %8 = remat.matmul %7, %arg6 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %9 = remat.tanh %8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.tanh %10 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %12 = remat.mse %11, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  // expected-error-re @below {{'remat.tanh' does not correspond to op #13 of the original step, 'arith.constant' at {{.*}}Inputs/remat-verify-schedule-original.mlir:19:10: it is a different op (a rewrite keeps every original op, in order, and only adds remat.recompute regions)}}
  %extra = remat.tanh %11 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %13 = remat.recompute(%9, %arg7) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35 : tensor<2x4xf32>
  }
  %14 = remat.mse_grad %13, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %15 = remat.tanh_grad %14, %13 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %16 = remat.matmul %15, %arg7 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %17 = remat.matmul %9, %15 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %18 = remat.tanh_grad %16, %9 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %19 = remat.matmul %18, %arg6 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %20:2 = remat.recompute(%4, %arg5) : (tensor<2x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>):
    %34 = remat.tanh %arg8 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %35 = remat.matmul %34, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %36 = remat.tanh %35 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %34, %36 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %21 = remat.matmul %20#1, %18 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %22 = remat.tanh_grad %19, %20#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %23 = remat.matmul %22, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %24 = remat.matmul %20#0, %22 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %25 = remat.tanh_grad %23, %20#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %26 = remat.matmul %25, %arg4 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %27:2 = remat.recompute(%arg0, %arg2, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%arg8: tensor<2x4xf32>, %arg9: tensor<4x4xf32>, %arg10: tensor<4x4xf32>):
    %34 = remat.matmul %arg8, %arg9 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %35 = remat.tanh %34 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %36 = remat.matmul %35, %arg10 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %37 = remat.tanh %36 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %35, %37 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  %28 = remat.matmul %27#1, %25 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %29 = remat.tanh_grad %26, %27#1 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %30 = remat.matmul %29, %arg3 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %31 = remat.matmul %27#0, %29 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %32 = remat.tanh_grad %30, %27#0 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %33 = remat.matmul %arg0, %32 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %12, %33, %31, %28, %24, %21, %17 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The recomputed dropout reads the other layer's seed: a different mask.
func.func @dropout(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.dropout %0, %arg2 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %2 = remat.tanh %1 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = remat.matmul %2, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %4 = remat.dropout %3, %arg3 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.mse %5, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %7 = remat.mse_grad %5, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %8 = remat.tanh_grad %7, %5 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %9 = remat.dropout %8, %arg3 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.recompute(%arg0, %arg4, %arg3) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<i64>) -> tensor<2x4xf32> {
  ^bb0(%arg6: tensor<2x4xf32>, %arg7: tensor<4x4xf32>, %arg8: tensor<i64>):
    %16 = remat.matmul %arg6, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %17 = remat.dropout %16, %arg8 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
    %18 = remat.tanh %17 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %18 : tensor<2x4xf32>
  }
  // expected-error-re @below {{operand #0 of 'remat.matmul' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:44:8 in the original, but it is result #0 of the remat.recompute at {{.*}}, a value the original step never computes}}
  %12 = remat.matmul %11, %9 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %13 = remat.tanh_grad %10, %11 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %14 = remat.dropout %13, %arg2 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %15 = remat.matmul %arg0, %14 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %6, %15, %12 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The recomputed dropout has another rate: a different mask.
func.func @dropout(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<4x4xf32> {remat.param}, %arg5: tensor<4x4xf32> {remat.param}) -> (tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %arg0, %arg4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = remat.dropout %0, %arg2 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %2 = remat.tanh %1 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = remat.matmul %2, %arg5 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %4 = remat.dropout %3, %arg3 {rate = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %5 = remat.tanh %4 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = remat.mse %5, %arg1 {remat.phase = #remat.phase<loss>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %7 = remat.mse_grad %5, %arg1, %cst {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %8 = remat.tanh_grad %7, %5 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %9 = remat.dropout %8, %arg3 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %10 = remat.matmul %9, %arg5 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %11 = remat.recompute(%arg0, %arg4, %arg2) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<i64>) -> tensor<2x4xf32> {
  ^bb0(%arg6: tensor<2x4xf32>, %arg7: tensor<4x4xf32>, %arg8: tensor<i64>):
    %16 = remat.matmul %arg6, %arg7 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %17 = remat.dropout %16, %arg8 {rate = 2.500000e-01 : f64} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
    %18 = remat.tanh %17 : (tensor<2x4xf32>) -> tensor<2x4xf32>
    remat.yield %18 : tensor<2x4xf32>
  }
  // expected-error-re @below {{operand #0 of 'remat.matmul' is not the value the original step reads: it should be result #0 of 'remat.tanh' at {{.*}}Inputs/remat-verify-schedule-original.mlir:44:8 in the original, but it is result #0 of the remat.recompute at {{.*}}, a value the original step never computes}}
  %12 = remat.matmul %11, %9 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %13 = remat.tanh_grad %10, %11 {remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %14 = remat.dropout %13, %arg2 {rate = 5.000000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %15 = remat.matmul %arg0, %14 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %6, %15, %12 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A function the original file does not define.
// expected-error-re @below {{the original step '{{.*}}Inputs/remat-verify-schedule-original.mlir' has no function @not_in_original with a body to compare with}}
func.func @not_in_original(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A function whose type differs from the original's.
// expected-error @below {{@dropout has type '(tensor<4xf32>) -> tensor<4xf32>' but the original step has}}
func.func @dropout(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
