// Binary ops with numpy broadcasting, unary activations and activation
// gradients, compared elementwise with torch (float64) by remat_exec.py.
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --seed 3 | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --seed 3 < %t.out | FileCheck %s

// CHECK-COUNT-18: ok result
// CHECK: OK: 18 tensors
func.func @elementwise(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %c: tensor<4xf32>,
                       %d: tensor<2x1x4xf32>, %e: tensor<1xf32>, %dy: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  // [2,3,4] + [3,1]: the trailing 1 broadcasts, the leading 2 is missing.
  %0 = remat.add %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // [4] - [2,3,4]: lhs of lower rank.
  %1 = remat.sub %c, %a : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // [2,1,4] * [3,1]: both operands broadcast.
  %2 = remat.mul %d, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  // [2,3,4] / (2 + [1]).
  %two = arith.constant dense<2.0> : tensor<1xf32>
  %den = remat.add %two, %e : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %3 = remat.div %a, %den : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  %4 = remat.relu %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %5 = remat.gelu %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %6 = remat.tanh %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %7 = remat.sigmoid %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %8 = remat.exp %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // log of a positive value.
  %9 = remat.log %7 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %10 = remat.neg %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %11 = remat.relu_grad %dy, %a : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %12 = remat.gelu_grad %dy, %a : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %13 = remat.tanh_grad %dy, %6 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // A 2-D result of [3,1] + [4].
  %14 = remat.add %b, %c : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %15 = remat.sigmoid_grad %dy, %7 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // Exact (erf) GELU and its gradient.
  %16 = remat.gelu_erf %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %17 = remat.gelu_erf_grad %dy, %a : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17
    : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
