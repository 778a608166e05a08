// End to end with a rematerialization schedule: --remat-autodiff, then
// --remat-rematerialize (sqrt strategy) puts forward ops into remat.recompute
// regions of the backward; the regions are lowered, opened and executed, and
// the loss and gradients must still match torch autograd (float64).
// RUN: remat-opt %s --remat-autodiff --remat-rematerialize=strategy=sqrt 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=PLAN
// RUN: remat-opt %s --remat-autodiff --remat-rematerialize=strategy=sqrt --remat-lower-to-linalg --remat-open-recompute 2>/dev/null \
// RUN:   | %remat_exec main --params-from %s --seed 23 --fd 2 | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --mode grad --seed 23 --fd 2 < %t.out | FileCheck %s

// PLAN: remat.recompute
// CHECK: ok loss
// CHECK-COUNT-6: ok d/d arg
// CHECK-COUNT-2: ok finite difference
// CHECK: OK: 7 tensors
func.func @deep(%x: tensor<4x6xf32>, %t: tensor<4x6xf32>,
                %w1: tensor<6x6xf32> {remat.param}, %w2: tensor<6x6xf32> {remat.param},
                %w3: tensor<6x6xf32> {remat.param}, %w4: tensor<6x6xf32> {remat.param},
                %w5: tensor<6x6xf32> {remat.param}, %b: tensor<6xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w1 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %1 = remat.tanh %0 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %2 = remat.matmul %1, %w2 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %3 = remat.sigmoid %2 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %4 = remat.matmul %3, %w3 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %5 = remat.gelu %4 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %6 = remat.matmul %5, %w4 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %7 = remat.add %6, %b : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %8 = remat.tanh %7 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %9 = remat.matmul %8, %w5 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %10 = remat.log_softmax %9 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %11 = remat.mse %10, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %11 : tensor<f32>
}
