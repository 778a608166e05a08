// RUN: remat-opt %s --remat-open-recompute --split-input-file | FileCheck %s
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute --split-input-file \
// RUN:   | FileCheck %s --check-prefix=LOWERED
// Nested under func.func (the pass runs on one function at a time).
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-open-recompute))' --split-input-file | FileCheck %s
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-lower-to-linalg,remat-open-recompute))' --split-input-file \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// The body replaces the op in place: block arguments become the inputs and
// the results become the yielded values; the recomputation is not merged
// with the identical original computation.
// CHECK-LABEL: func @open
// CHECK: %[[H:.+]] = remat.tanh %arg0
// CHECK-NEXT: %[[G:.+]] = remat.tanh_grad %arg1, %[[H]]
// CHECK-NEXT: %[[R:.+]] = remat.tanh %arg0
// CHECK-NEXT: %[[G2:.+]] = remat.tanh_grad %[[G]], %[[R]]
// CHECK-NEXT: return %[[G2]]
// CHECK-NOT: remat.recompute
// CHECK-NOT: remat.yield
// LOWERED-LABEL: func @open
// LOWERED-COUNT-4: linalg.generic
// LOWERED-NOT: remat.
func.func @open(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %h = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %g = remat.tanh_grad %dy, %h : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %g2 = remat.tanh_grad %g, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g2 : tensor<4xf32>
}

// -----

// Several results, one of them a yielded block argument (the input itself),
// and several ops in one body, kept in order.
// CHECK-LABEL: func @multi
// CHECK: %[[M:.+]] = remat.matmul %arg0, %arg1
// CHECK-NEXT: %[[T:.+]] = remat.relu %[[M]]
// CHECK-NEXT: %[[A:.+]] = remat.add %[[T]], %arg1
// CHECK-NEXT: return %[[A]], %[[M]]
func.func @multi(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %r:3 = remat.recompute(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %0 = remat.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = remat.relu %0 : (tensor<4x4xf32>) -> tensor<4x4xf32>
    remat.yield %1, %b, %0 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  }
  %s = remat.add %r#0, %r#1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s, %r#2 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Two regions: both are opened where they stand.
// CHECK-LABEL: func @two
// CHECK: %[[A:.+]] = remat.exp %arg0
// CHECK-NEXT: %[[B:.+]] = remat.neg %[[A]]
// CHECK-NEXT: %[[C:.+]] = remat.exp %[[B]]
// CHECK-NEXT: return %[[C]]
// LOWERED-LABEL: func @two
// LOWERED: linalg.generic
// LOWERED:   math.exp
// LOWERED: linalg.generic
// LOWERED:   arith.negf
// LOWERED: linalg.generic
// LOWERED:   math.exp
// LOWERED-NOT: remat.
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<4xf32>):
    %0 = remat.exp %i : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %b = remat.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.recompute(%b) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<4xf32>):
    %0 = remat.exp %i : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
