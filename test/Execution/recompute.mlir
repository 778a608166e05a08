// remat.recompute regions are lowered in place and opened: a region with two
// results, one of them a yielded block argument, and a region whose input
// is computed from another region's result. The results are compared with a
// torch evaluation that runs each region body on its inputs.
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --seed 19 | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --seed 19 < %t.out | FileCheck %s

// CHECK-COUNT-4: ok result
// CHECK: OK: 4 tensors
func.func @recompute(%x: tensor<3x4xf32>, %w: tensor<4x4xf32>, %dy: tensor<3x4xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>) {
  %h = remat.matmul %x, %w : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %t = remat.tanh %h : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %r:2 = remat.recompute(%x, %w) : (tensor<3x4xf32>, tensor<4x4xf32>) -> (tensor<3x4xf32>, tensor<4x4xf32>) {
  ^bb0(%a: tensor<3x4xf32>, %b: tensor<4x4xf32>):
    %0 = remat.matmul %a, %b : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
    %1 = remat.tanh %0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
    remat.yield %1, %b : tensor<3x4xf32>, tensor<4x4xf32>
  }
  %g = remat.tanh_grad %dy, %r#0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s = remat.recompute(%g) : (tensor<3x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%a: tensor<3x4xf32>):
    %0 = remat.softmax %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    remat.yield %0 : tensor<3x4xf32>
  }
  %d = remat.sub %t, %r#0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %g, %s, %r#1, %d : tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>
}
