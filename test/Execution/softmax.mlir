// softmax / log_softmax along the last and a leading axis, and their
// gradients from the forward results, compared with torch (the gradients
// with autograd vjps of torch.softmax / torch.log_softmax).
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --seed 7 --scale 4 | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --seed 7 --scale 4 < %t.out | FileCheck %s

// CHECK-COUNT-8: ok result
// CHECK: OK: 8 tensors
func.func @softmax(%x: tensor<2x3x5xf32>, %dy: tensor<2x3x5xf32>)
    -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>,
        tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %0 = remat.softmax %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %1 = remat.softmax %x {axis = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %2 = remat.log_softmax %x : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %3 = remat.log_softmax %x {axis = -3 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %4 = remat.softmax_grad %dy, %0 : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %5 = remat.softmax_grad %dy, %1 {axis = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %6 = remat.log_softmax_grad %dy, %2 : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %7 = remat.log_softmax_grad %dy, %3 {axis = 0 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
    : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>,
      tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}
