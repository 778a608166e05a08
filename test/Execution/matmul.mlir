// remat.matmul: 2-D with every transpose combination, batched 3-D and 4-D
// operands with transposes, and a 2-D rhs shared by every batch of a 3-D
// lhs, compared with torch.matmul (float64) by remat_exec.py.
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --seed 5 | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --seed 5 < %t.out | FileCheck %s

// CHECK-COUNT-10: ok result
// CHECK: OK: 10 tensors
func.func @matmul(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %at: tensor<5x3xf32>, %bt: tensor<4x5xf32>,
                  %x: tensor<2x3x5xf32>, %y: tensor<2x5x4xf32>, %xt: tensor<2x5x3xf32>, %yt: tensor<2x4x5xf32>,
                  %p: tensor<2x2x3x5xf32>, %q: tensor<2x2x4x5xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = remat.matmul %a, %b : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %1 = remat.matmul %at, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %2 = remat.matmul %a, %bt {transpose_b} : (tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  %3 = remat.matmul %at, %bt {transpose_a, transpose_b} : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  %4 = remat.matmul %x, %y : (tensor<2x3x5xf32>, tensor<2x5x4xf32>) -> tensor<2x3x4xf32>
  %5 = remat.matmul %xt, %yt {transpose_a, transpose_b} : (tensor<2x5x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  // 2-D rhs shared by the batch.
  %6 = remat.matmul %x, %b : (tensor<2x3x5xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  %7 = remat.matmul %xt, %bt {transpose_a, transpose_b} : (tensor<2x5x3xf32>, tensor<4x5xf32>) -> tensor<2x3x4xf32>
  // Two batch dimensions (attention scores q k^T).
  %8 = remat.matmul %p, %q {transpose_b} : (tensor<2x2x3x5xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x4xf32>
  %9 = remat.matmul %x, %yt {transpose_b} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
    : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x2x3x4xf32>, tensor<2x3x4xf32>
}
