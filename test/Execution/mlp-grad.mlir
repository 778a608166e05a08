// Gradient check of a training step: --remat-autodiff on a 2-layer MLP with
// softmax cross-entropy, lowered and executed; the loss and the gradients of
// the four parameters are compared with torch autograd (float64) within 1e-5
// of the largest reference magnitude, and the compiled gradient is checked
// against central differences of the compiled loss along 3 random directions.
// RUN: remat-opt %s --remat-autodiff --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --params-from %s --seed 1 --int-high 5=5 --fd 3 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --mode grad --seed 1 --int-high 5=5 --fd 3 < %t.out | FileCheck %s

// CHECK: ok loss
// CHECK: ok d/d arg1
// CHECK: ok d/d arg2
// CHECK: ok d/d arg3
// CHECK: ok d/d arg4
// CHECK-COUNT-3: ok finite difference
// CHECK: OK: 5 tensors
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32> {remat.param}, %b1: tensor<16xf32> {remat.param},
               %w2: tensor<16x5xf32> {remat.param}, %b2: tensor<5xf32> {remat.param},
               %y: tensor<4xi64>) -> tensor<f32> {
  %0 = remat.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = remat.add %0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = remat.relu %1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = remat.matmul %2, %w2 : (tensor<4x16xf32>, tensor<16x5xf32>) -> tensor<4x5xf32>
  %4 = remat.add %3, %b2 : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %5 = remat.softmax_cross_entropy %4, %y : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %5 : tensor<f32>
}
