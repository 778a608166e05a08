// --remat-autodiff on forward functions that also return state (results
// marked remat.state = <argument index>, e.g. the running statistics of a
// batch norm): only the loss is differentiated, the state results follow the
// gradients unchanged with their attributes, and the ops computing them stay
// forward ops (no phase attribute, no backward op built for them).
//
// RUN: remat-opt %s --remat-autodiff | FileCheck %s
// The rewritten step is a valid training step for every scheduler: the state
// results are outputs, kept to the end (the verifier checks every strategy
// against the step before the rewrite).
// RUN: remat-opt %s --remat-autodiff --remat-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: remat-opt %s --remat-autodiff -o %t.step.mlir
// RUN: remat-opt %t.step.mlir --remat-rematerialize='strategy=store-all' --remat-verify-schedule='original=%t.step.mlir' -o /dev/null
// RUN: remat-opt %t.step.mlir --remat-rematerialize='strategy=sqrt' --remat-verify-schedule='original=%t.step.mlir' -o /dev/null
// RUN: remat-opt %t.step.mlir --remat-rematerialize='strategy=greedy' --remat-verify-schedule='original=%t.step.mlir' -o /dev/null
// RUN: remat-opt %t.step.mlir --remat-rematerialize='budget=512' --remat-verify-schedule='budget=512 original=%t.step.mlir' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET

// A running mean of the second activation of a tanh chain: 0.9 * old +
// 0.1 * (its column sums / 4), returned first, before the loss.
// CHECK-LABEL: func.func @running_mean(
// CHECK-SAME: %arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32> {remat.param}, %arg2: tensor<4x8xf32>, %arg3: tensor<1x8xf32> {remat.state})
// CHECK-SAME: -> (tensor<f32>, tensor<8x8xf32>, tensor<1x8xf32> {remat.state = 3 : i64}) attributes {remat.training_step}
// CHECK-NEXT: %[[A:.*]] = remat.matmul
// CHECK-NEXT: %[[B:.*]] = remat.tanh %[[A]]
// CHECK-NEXT: %[[C:.*]] = remat.tanh %[[B]]
// CHECK-NEXT: %[[D:.*]] = remat.tanh %[[C]]
// CHECK-NEXT: %[[L:.*]] = remat.mse %[[D]], %arg2 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[S:.*]] = remat.sum_to %[[B]] : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: arith.constant dense<2.500000e-02> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = remat.mul %[[S]], %{{.*}} : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
// CHECK-NEXT: arith.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT: %[[O:.*]] = remat.mul %arg3, %{{.*}} : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
// CHECK-NEXT: %[[N:.*]] = remat.add %[[O]], %[[M]] : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: remat.mse_grad {{.*}}remat.phase = #remat.phase<backward>
// CHECK-NEXT: remat.tanh_grad {{.*}}remat.phase = #remat.phase<backward>
// CHECK-NEXT: remat.tanh_grad {{.*}}remat.phase = #remat.phase<backward>
// CHECK-NEXT: remat.tanh_grad {{.*}}remat.phase = #remat.phase<backward>
// CHECK-NEXT: %[[G:.*]] = remat.matmul %arg0, %{{.*}} {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: return %[[L]], %[[G]], %[[N]] : tensor<f32>, tensor<8x8xf32>, tensor<1x8xf32>
func.func @running_mean(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %t: tensor<4x8xf32>, %rm: tensor<1x8xf32> {remat.state}) -> (tensor<1x8xf32> {remat.state = 3 : i64}, tensor<f32>) {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.tanh %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.tanh %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = remat.tanh %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %loss = remat.mse %3, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %s = remat.sum_to %1 : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %c1 = arith.constant dense<2.500000e-02> : tensor<f32>
  %m = remat.mul %s, %c1 : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %c9 = arith.constant dense<9.000000e-01> : tensor<f32>
  %o = remat.mul %rm, %c9 : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %n = remat.add %o, %m : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  return %n, %loss : tensor<1x8xf32>, tensor<f32>
}

// The state result (32 bytes) is an output, counted apart like the loss and
// the gradient (4 + 256 bytes).
// REPORT: remark: peak activation bytes 640 (total with arguments 1476 and outputs, arguments 544, parameters 256, outputs 292)

// At 512 of store-all's 640 bytes the plan recomputes a tanh of the chain
// and still returns the state (the verifier compares every value the return reads).
// BUDGET: schedule verified: peak 512 bytes, 1 recomputed ops; every value its {{[0-9]+}} ops outside recompute regions read (the return included) equals the original's

// Several state values, one of them an integer counter updated by a
// linalg.generic (an upstream op, not on the loss path), and a state
// argument returned unchanged.
// CHECK-LABEL: func.func @counter(
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32>, tensor<i64> {remat.state = 2 : i64}, tensor<4xf32> {remat.state = 3 : i64})
// CHECK: %[[C:.*]] = linalg.generic
// CHECK-NOT: remat.phase
// CHECK: } -> tensor<i64>
// CHECK: return %{{.*}}, %{{.*}}, %[[C]], %arg3 : tensor<f32>, tensor<4xf32>, tensor<i64>, tensor<4xf32>
func.func @counter(%w: tensor<4xf32> {remat.param}, %t: tensor<4xf32>, %n: tensor<i64> {remat.state}, %u: tensor<4xf32> {remat.state}) -> (tensor<f32>, tensor<i64> {remat.state = 2 : i64}, tensor<4xf32> {remat.state = 3 : i64}) {
  %0 = remat.relu %w : (tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.mse %0, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %e = tensor.empty() : tensor<i64>
  %2 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%n : tensor<i64>) outs(%e : tensor<i64>) {
  ^bb0(%a: i64, %b: i64):
    %one = arith.constant 1 : i64
    %s = arith.addi %a, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  return %1, %2, %u : tensor<f32>, tensor<i64>, tensor<4xf32>
}
