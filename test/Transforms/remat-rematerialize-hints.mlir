// RUN: remat-opt %s --remat-rematerialize="strategy=greedy threshold=16" -split-input-file 2>/dev/null | FileCheck %s

// Hints are honoured under the plan that would otherwise drop a and c
// (greedy with a 16-byte threshold keeps b and d; see
// remat-rematerialize.mlir).

// remat.keep on c: c stays, only a is recomputed.
// CHECK-LABEL: func.func @keep_hint
// CHECK:      %[[A:.*]] = remat.tanh %arg0
// CHECK-NEXT: %[[B:.*]] = remat.tanh %[[A]]
// CHECK-NEXT: %[[C:.*]] = remat.tanh %[[B]]
// CHECK-NEXT: remat.keep %[[C]]
// CHECK-NOT:  remat.recompute(%[[B]])
// CHECK:      remat.tanh_grad %{{.*}}, %[[C]]
// CHECK:      remat.recompute(%arg0)
func.func @keep_hint(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
  remat.keep %c : tensor<4xf32>
  %d = remat.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %d, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %gd = remat.mse_grad %d, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gc = remat.tanh_grad %gd, %d {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gb = remat.tanh_grad %gc, %c {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ga = remat.tanh_grad %gb, %b {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}

// -----

// remat.no_recompute on a: a stays; c is still recomputed from b.
// CHECK-LABEL: func.func @no_recompute_hint
// CHECK: %[[A:.*]] = remat.tanh %arg0 {remat.no_recompute}
// CHECK: remat.recompute(
// CHECK-NOT: remat.recompute(
// CHECK: remat.tanh_grad %{{.*}}, %[[A]]
func.func @no_recompute_hint(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x {remat.no_recompute} : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = remat.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %d, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %gd = remat.mse_grad %d, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gc = remat.tanh_grad %gd, %d {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gb = remat.tanh_grad %gc, %c {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ga = remat.tanh_grad %gb, %b {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}

// -----

// An op with side effects (a call) is never recomputed: a stays resident.
// CHECK-LABEL: func.func @side_effect
// CHECK: %[[A:.*]] = call @noisy(%arg0)
// CHECK-NOT: call @noisy
// CHECK: remat.tanh_grad %{{.*}}, %[[A]]
func.func private @noisy(tensor<4xf32>) -> tensor<4xf32>
func.func @side_effect(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = func.call @noisy(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = remat.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %d, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %gd = remat.mse_grad %d, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gc = remat.tanh_grad %gd, %d {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gb = remat.tanh_grad %gc, %c {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ga = remat.tanh_grad %gb, %b {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}
