// --remat-autodiff: one case per differentiable op, checking the backward ops
// the gradient rule builds (operands, transposes, attributes), that every
// created op carries #remat.phase<backward> and the loss op
// #remat.phase<loss>, the new function type (loss, then one gradient per
// remat.param argument in argument order) and the return. CHECK-NEXT chains
// from the loss to the return also show that no dead backward op remains
// (gradients of inputs that are not parameters are not built).
// The rules were also checked numerically against torch autograd (float64).
//
// RUN: remat-opt %s --remat-autodiff | FileCheck %s
// Functions already marked remat.training_step are skipped, so running the
// pass twice gives the same result.
// RUN: remat-opt %s --remat-autodiff --remat-autodiff | FileCheck %s
// The pass runs on one function at a time, nested under func.func.
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-autodiff))' | FileCheck %s

//===----------------------------------------------------------------------===//
// Matmul: C = op(A) op(B), dA' = dC op(B)^T, dB' = op(A)^T dC
//===----------------------------------------------------------------------===//

// dA = dC B^T, dB = A^T dC.
// CHECK-LABEL: func.func @matmul_nn(
// CHECK-SAME: %arg0: tensor<4x8xf32> {remat.param}, %arg1: tensor<8x6xf32> {remat.param}, %arg2: tensor<4x6xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<4x8xf32>, tensor<8x6xf32>) attributes {remat.training_step}
// CHECK-NEXT: %[[C:.*]] = remat.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[L:.*]] = remat.mse %[[C]], %arg2 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DC:.*]] = remat.mse_grad %[[C]], %arg2, %[[ONE]] {remat.phase = #remat.phase<backward>} : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<4x6xf32>, tensor<8x6xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %arg0, %[[DC]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: return %[[L]], %[[DA]], %[[DB]] : tensor<f32>, tensor<4x8xf32>, tensor<8x6xf32>
func.func @matmul_nn(%a: tensor<4x8xf32> {remat.param}, %b: tensor<8x6xf32> {remat.param}, %t: tensor<4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %1 = remat.mse %0, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// C = A B^T: dA = dC B, dB = dC^T A.
// CHECK-LABEL: func.func @matmul_nt(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[DC]], %arg0 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<4x6xf32>, tensor<4x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<4x8xf32>, tensor<6x8xf32>
func.func @matmul_nt(%a: tensor<4x8xf32> {remat.param}, %b: tensor<6x8xf32> {remat.param}, %t: tensor<4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %1 = remat.mse %0, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// C = A^T B: dA = B dC^T, dB = A dC.
// CHECK-LABEL: func.func @matmul_tn(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %arg1, %[[DC]] {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<8x6xf32>, tensor<4x6xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %arg0, %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<8x4xf32>, tensor<8x6xf32>
func.func @matmul_tn(%a: tensor<8x4xf32> {remat.param}, %b: tensor<8x6xf32> {remat.param}, %t: tensor<4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %1 = remat.mse %0, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// C = A^T B^T: dA = B^T dC^T, dB = dC^T A^T.
// CHECK-LABEL: func.func @matmul_tt(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %arg1, %[[DC]] {remat.phase = #remat.phase<backward>, transpose_a, transpose_b} : (tensor<6x8xf32>, tensor<4x6xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[DC]], %arg0 {remat.phase = #remat.phase<backward>, transpose_a, transpose_b} : (tensor<4x6xf32>, tensor<8x4xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<8x4xf32>, tensor<6x8xf32>
func.func @matmul_tt(%a: tensor<8x4xf32> {remat.param}, %b: tensor<6x8xf32> {remat.param}, %t: tensor<4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %1 = remat.mse %0, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// Batched operands of equal rank: batched products, no reduction over the batch.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<3x4x6xf32>, tensor<3x8x6xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %arg0, %[[DC]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<3x4x8xf32>, tensor<3x4x6xf32>) -> tensor<3x8x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @matmul_batched(%a: tensor<3x4x8xf32> {remat.param}, %b: tensor<3x8x6xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b : (tensor<3x4x8xf32>, tensor<3x8x6xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @matmul_batched_tt(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %arg1, %[[DC]] {remat.phase = #remat.phase<backward>, transpose_a, transpose_b} : (tensor<3x6x8xf32>, tensor<3x4x6xf32>) -> tensor<3x8x4xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[DC]], %arg0 {remat.phase = #remat.phase<backward>, transpose_a, transpose_b} : (tensor<3x4x6xf32>, tensor<3x8x4xf32>) -> tensor<3x6x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @matmul_batched_tt(%a: tensor<3x8x4xf32> {remat.param}, %b: tensor<3x6x8xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<3x8x4xf32>, tensor<3x6x8xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// A 2-D rhs shared by a batched lhs: dA is a batched product with the 2-D
// rhs; dB sums over the batch, computed by folding the batch into the rows:
// dB = reshape(A)[12x8]^T reshape(dC)[12x6].
// CHECK-LABEL: func.func @matmul_bcast(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<3x4x6xf32>, tensor<8x6xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT: %[[A2:.*]] = remat.reshape %arg0 {remat.phase = #remat.phase<backward>} : (tensor<3x4x8xf32>) -> tensor<12x8xf32>
// CHECK-NEXT: %[[DC2:.*]] = remat.reshape %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<3x4x6xf32>) -> tensor<12x6xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[A2]], %[[DC2]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<12x8xf32>, tensor<12x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<3x4x8xf32>, tensor<8x6xf32>
func.func @matmul_bcast(%a: tensor<3x4x8xf32> {remat.param}, %b: tensor<8x6xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b : (tensor<3x4x8xf32>, tensor<8x6xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// C = A B^T with B 2-D: dA = dC B, dB = reshape(dC)^T reshape(A).
// CHECK-LABEL: func.func @matmul_bcast_tb(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<3x4x6xf32>, tensor<6x8xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT: %[[A2:.*]] = remat.reshape %arg0 {remat.phase = #remat.phase<backward>} : (tensor<3x4x8xf32>) -> tensor<12x8xf32>
// CHECK-NEXT: %[[DC2:.*]] = remat.reshape %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<3x4x6xf32>) -> tensor<12x6xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[DC2]], %[[A2]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<12x6xf32>, tensor<12x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @matmul_bcast_tb(%a: tensor<3x4x8xf32> {remat.param}, %b: tensor<6x8xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<3x4x8xf32>, tensor<6x8xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// C = A^T B with A batched and B 2-D: dA = (dC B^T)^T, formed as a batched
// product and transposed in its last two dimensions (the 2-D operand must stay
// on the right); dB = reshape(A^T)^T reshape(dC).
// CHECK-LABEL: func.func @matmul_bcast_ta(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DAT:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<3x4x6xf32>, tensor<8x6xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT: %[[DA:.*]] = remat.transpose %[[DAT]] {permutation = array<i64: 0, 2, 1>, remat.phase = #remat.phase<backward>} : (tensor<3x4x8xf32>) -> tensor<3x8x4xf32>
// CHECK-NEXT: %[[AT:.*]] = remat.transpose %arg0 {permutation = array<i64: 0, 2, 1>, remat.phase = #remat.phase<backward>} : (tensor<3x8x4xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT: %[[A2:.*]] = remat.reshape %[[AT]] {remat.phase = #remat.phase<backward>} : (tensor<3x4x8xf32>) -> tensor<12x8xf32>
// CHECK-NEXT: %[[DC2:.*]] = remat.reshape %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<3x4x6xf32>) -> tensor<12x6xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[A2]], %[[DC2]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<12x8xf32>, tensor<12x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<3x8x4xf32>, tensor<8x6xf32>
func.func @matmul_bcast_ta(%a: tensor<3x8x4xf32> {remat.param}, %b: tensor<8x6xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<3x8x4xf32>, tensor<8x6xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @matmul_bcast_tt(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DAT:.*]] = remat.matmul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<3x4x6xf32>, tensor<6x8xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT: %[[DA:.*]] = remat.transpose %[[DAT]] {permutation = array<i64: 0, 2, 1>, remat.phase = #remat.phase<backward>} : (tensor<3x4x8xf32>) -> tensor<3x8x4xf32>
// CHECK-NEXT: %[[AT:.*]] = remat.transpose %arg0 {permutation = array<i64: 0, 2, 1>, remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[A2:.*]] = remat.reshape %[[AT]]
// CHECK-NEXT: %[[DC2:.*]] = remat.reshape %[[DC]]
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[DC2]], %[[A2]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<12x6xf32>, tensor<12x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @matmul_bcast_tt(%a: tensor<3x8x4xf32> {remat.param}, %b: tensor<6x8xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<3x8x4xf32>, tensor<6x8xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// When the batched lhs is not a parameter, its gradient (matmul + transpose)
// is not left behind; only the reduction for dB remains.
// CHECK-LABEL: func.func @matmul_bcast_ta_input(
// CHECK-SAME: -> (tensor<f32>, tensor<8x6xf32>)
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[AT:.*]] = remat.transpose %arg0 {permutation = array<i64: 0, 2, 1>, remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[A2:.*]] = remat.reshape %[[AT]]
// CHECK-NEXT: %[[DC2:.*]] = remat.reshape %[[DC]]
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[A2]], %[[DC2]] {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: return %{{.*}}, %[[DB]] : tensor<f32>, tensor<8x6xf32>
func.func @matmul_bcast_ta_input(%a: tensor<3x8x4xf32>, %b: tensor<8x6xf32> {remat.param}, %t: tensor<3x4x6xf32>) -> tensor<f32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<3x8x4xf32>, tensor<8x6xf32>) -> tensor<3x4x6xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops: gradients are summed back with remat.sum_to
//===----------------------------------------------------------------------===//

// The full-shape operand gets the result gradient itself (no sum_to).
// CHECK-LABEL: func.func @add_bcast(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DB:.*]] = remat.sum_to %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DC]], %[[DB]] : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
func.func @add_bcast(%x: tensor<4x8xf32> {remat.param}, %b: tensor<8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// Both operands broadcast: [4,1] - [1,8] -> [4,8]; d(lhs) = sum_to(dC),
// d(rhs) = sum_to(-dC).
// CHECK-LABEL: func.func @sub_bcast(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[N:.*]] = remat.neg %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DX:.*]] = remat.sum_to %[[DC]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[DY:.*]] = remat.sum_to %[[N]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]] : tensor<f32>, tensor<4x1xf32>, tensor<1x8xf32>
func.func @sub_bcast(%x: tensor<4x1xf32> {remat.param}, %y: tensor<1x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.sub %x, %y : (tensor<4x1xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// d(x) = dC * y, d(y) = sum_to(dC * x).
// CHECK-LABEL: func.func @mul_bcast(
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.mul %[[DC]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = remat.mul %[[DC]], %arg0 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DY:.*]] = remat.sum_to %[[P]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]] : tensor<f32>, tensor<4x8xf32>, tensor<4x1xf32>
func.func @mul_bcast(%x: tensor<4x8xf32> {remat.param}, %y: tensor<4x1xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.mul %x, %y : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// c = x / y: d(x) = dC / y, d(y) = sum_to(-(dC * (c / y))) = -dC x / y^2.
// CHECK-LABEL: func.func @div_bcast(
// CHECK: %[[Q:.*]] = remat.div %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: %[[DC:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.div %[[DC]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[CY:.*]] = remat.div %[[Q]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = remat.mul %[[DC]], %[[CY]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[N:.*]] = remat.neg %[[P]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DY:.*]] = remat.sum_to %[[N]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]] : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
func.func @div_bcast(%x: tensor<4x8xf32> {remat.param}, %y: tensor<8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.div %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Elementwise activations
//===----------------------------------------------------------------------===//

// relu_grad and gelu_grad take the forward input.
// CHECK-LABEL: func.func @relu(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.relu_grad %[[DY]], %arg0 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<4x8xf32>
func.func @relu(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// relu6 (inputs scaled by 8 so that both clamp sides are reached).
// CHECK-LABEL: func.func @relu6(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.relu6_grad %[[DY]], %[[S:.*]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @relu6(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %c = arith.constant dense<8.0> : tensor<4x8xf32>
  %s = remat.mul %x, %c : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = remat.relu6 %s : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @gelu(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.gelu_grad %[[DY]], %arg0 {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @gelu(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.gelu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @gelu_erf(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.gelu_erf_grad %[[DY]], %arg0 {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @gelu_erf(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.gelu_erf %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// tanh_grad and sigmoid_grad take the forward result.
// CHECK-LABEL: func.func @tanh(
// CHECK-NEXT: %[[Y:.*]] = remat.tanh %arg0
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.tanh_grad %[[DY]], %[[Y]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @tanh(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @sigmoid(
// CHECK-NEXT: %[[Y:.*]] = remat.sigmoid %arg0
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.sigmoid_grad %[[DY]], %[[Y]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @sigmoid(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.sigmoid %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// d exp(x) = dy * exp(x), reusing the forward result.
// CHECK-LABEL: func.func @exp(
// CHECK-NEXT: %[[Y:.*]] = remat.exp %arg0
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.mul %[[DY]], %[[Y]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @exp(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// d log(x) = dy / x.
// CHECK-LABEL: func.func @log(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.div %[[DY]], %arg0 {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @log(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.log %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @neg(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.neg %[[DY]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @neg(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Softmax, normalization, convolution, pooling
//===----------------------------------------------------------------------===//

// The gradient ops take the forward result and keep the axis.
// CHECK-LABEL: func.func @softmax(
// CHECK-NEXT: %[[Y:.*]] = remat.softmax %arg0 {axis = 0 : i64}
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.softmax_grad %[[DY]], %[[Y]] {axis = 0 : i64, remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @softmax(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.softmax %x {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @log_softmax(
// CHECK-NEXT: %[[Y:.*]] = remat.log_softmax %arg0
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.log_softmax_grad %[[DY]], %[[Y]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @log_softmax(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.log_softmax %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// One grad op gives the input, scale and bias gradients; epsilon is kept.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: -> (tensor<f32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = remat.layer_norm_grad %[[DY]], %arg0, %arg1 {epsilon = 1.000000e-03 : f64, remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DS]], %[[DB]]
func.func @layer_norm(%x: tensor<4x8xf32> {remat.param}, %g: tensor<8xf32> {remat.param}, %b: tensor<8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.layer_norm %x, %g, %b {epsilon = 1.000000e-03 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @batch_norm(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]], %[[DS:.*]], %[[DB:.*]] = remat.batch_norm_grad %[[DY]], %arg0, %arg1 {remat.phase = #remat.phase<backward>} : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DS]], %[[DB]]
func.func @batch_norm(%x: tensor<2x3x4x4xf32> {remat.param}, %g: tensor<3xf32> {remat.param}, %b: tensor<3xf32> {remat.param}, %t: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %0 = remat.batch_norm %x, %g, %b : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  %1 = remat.mse %0, %t : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// Both conv gradient ops carry the forward strides/padding/dilations/groups.
// CHECK-LABEL: func.func @conv2d(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.conv2d_input_grad %[[DY]], %arg1 {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, remat.phase = #remat.phase<backward>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
// CHECK-NEXT: %[[DW:.*]] = remat.conv2d_filter_grad %[[DY]], %arg0 {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, remat.phase = #remat.phase<backward>, strides = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<2x4x9x9xf32>) -> tensor<6x2x3x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]]
func.func @conv2d(%x: tensor<2x4x9x9xf32> {remat.param}, %w: tensor<6x2x3x3xf32> {remat.param}, %t: tensor<2x6x4x4xf32>) -> tensor<f32> {
  %0 = remat.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilations = array<i64: 2, 2>, groups = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  %1 = remat.mse %0, %t : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @max_pool2d(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.max_pool2d_grad %[[DY]], %arg0 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, remat.phase = #remat.phase<backward>} : (tensor<2x3x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @max_pool2d(%x: tensor<2x3x8x8xf32> {remat.param}, %t: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %0 = remat.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  %1 = remat.mse %0, %t : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// avg_pool2d_grad does not need the forward input.
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.avg_pool2d_grad %[[DY]] {remat.phase = #remat.phase<backward>, strides = array<i64: 1, 1>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @avg_pool2d(%x: tensor<2x3x8x8xf32> {remat.param}, %t: tensor<2x3x7x7xf32>) -> tensor<f32> {
  %0 = remat.avg_pool2d %x {strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x7x7xf32>
  %1 = remat.mse %0, %t : (tensor<2x3x7x7xf32>, tensor<2x3x7x7xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @global_avg_pool(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.global_avg_pool_grad %[[DY]] {remat.phase = #remat.phase<backward>} : (tensor<2x3xf32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @global_avg_pool(%x: tensor<2x3x4x4xf32> {remat.param}, %t: tensor<2x3xf32>) -> tensor<f32> {
  %0 = remat.global_avg_pool %x : (tensor<2x3x4x4xf32>) -> tensor<2x3xf32>
  %1 = remat.mse %0, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.reshape %[[DY]] {remat.phase = #remat.phase<backward>} : (tensor<2x12xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @reshape(%x: tensor<4x6xf32> {remat.param}, %t: tensor<2x12xf32>) -> tensor<f32> {
  %0 = remat.reshape %x : (tensor<4x6xf32>) -> tensor<2x12xf32>
  %1 = remat.mse %0, %t : (tensor<2x12xf32>, tensor<2x12xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// The inverse of [1, 2, 0] is [2, 0, 1].
// CHECK-LABEL: func.func @transpose(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.transpose %[[DY]] {permutation = array<i64: 2, 0, 1>, remat.phase = #remat.phase<backward>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @transpose(%x: tensor<2x3x4xf32> {remat.param}, %t: tensor<3x4x2xf32>) -> tensor<f32> {
  %0 = remat.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = remat.mse %0, %t : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// Each input gets the slice of the gradient at its offset (a negative axis
// counts from the last dimension).
// CHECK-LABEL: func.func @concat(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.slice %[[DY]] {offsets = array<i64: 0, 0>, remat.phase = #remat.phase<backward>, strides = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[DZ:.*]] = remat.slice %[[DY]] {offsets = array<i64: 0, 3>, remat.phase = #remat.phase<backward>, strides = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DZ]]
func.func @concat(%x: tensor<2x3xf32> {remat.param}, %z: tensor<2x5xf32> {remat.param}, %t: tensor<2x8xf32>) -> tensor<f32> {
  %0 = remat.concat %x, %z {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1 = remat.mse %0, %t : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// The middle input is not a parameter: its slice is not built, and the third
// input's offset still counts the middle input's rows (1 + 2).
// CHECK-LABEL: func.func @concat_axis0(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.slice %[[DY]] {offsets = array<i64: 0, 0>, remat.phase = #remat.phase<backward>, strides = array<i64: 1, 1>} : (tensor<6x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT: %[[DZ:.*]] = remat.slice %[[DY]] {offsets = array<i64: 3, 0>, remat.phase = #remat.phase<backward>, strides = array<i64: 1, 1>} : (tensor<6x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DZ]] : tensor<f32>, tensor<1x4xf32>, tensor<3x4xf32>
func.func @concat_axis0(%x: tensor<1x4xf32> {remat.param}, %y: tensor<2x4xf32>, %z: tensor<3x4xf32> {remat.param}, %t: tensor<6x4xf32>) -> tensor<f32> {
  %0 = remat.concat %x, %y, %z {axis = 0 : i64} : (tensor<1x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  %1 = remat.mse %0, %t : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @slice(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.slice_grad %[[DY]] {offsets = array<i64: 1, 2>, remat.phase = #remat.phase<backward>, strides = array<i64: 3, 2>} : (tensor<2x3xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @slice(%x: tensor<6x8xf32> {remat.param}, %t: tensor<2x3xf32>) -> tensor<f32> {
  %0 = remat.slice %x {offsets = array<i64: 1, 2>, strides = array<i64: 3, 2>} : (tensor<6x8xf32>) -> tensor<2x3xf32>
  %1 = remat.mse %0, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @broadcast_to(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.sum_to %[[DY]] {remat.phase = #remat.phase<backward>} : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @broadcast_to(%x: tensor<3x1xf32> {remat.param}, %t: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = remat.broadcast_to %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = remat.mse %0, %t : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @sum_to(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.broadcast_to %[[DY]] {remat.phase = #remat.phase<backward>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @sum_to(%x: tensor<2x3x4xf32> {remat.param}, %t: tensor<3x1xf32>) -> tensor<f32> {
  %0 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  %1 = remat.mse %0, %t : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Embedding, dropout, losses
//===----------------------------------------------------------------------===//

// The table gets a scatter-add of the rows; the indices get nothing.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME: -> (tensor<f32>, tensor<10x4xf32>)
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DT:.*]] = remat.embedding_grad %[[DY]], %arg1 {remat.phase = #remat.phase<backward>} : (tensor<2x3x4xf32>, tensor<2x3xi32>) -> tensor<10x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DT]]
func.func @embedding(%table: tensor<10x4xf32> {remat.param}, %ids: tensor<2x3xi32>, %t: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = remat.embedding %table, %ids : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  %1 = remat.mse %0, %t : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// The gradient of dropout is the same dropout (same seed, same rate).
// CHECK-LABEL: func.func @dropout(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.dropout %[[DY]], %arg1 {rate = 2.500000e-01 : f64, remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @dropout(%x: tensor<4x8xf32> {remat.param}, %seed: tensor<i64>, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.dropout %x, %seed {rate = 2.500000e-01 : f64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// CHECK-LABEL: func.func @softmax_cross_entropy(
// CHECK-NEXT: %[[Z:.*]] = remat.matmul %arg0, %arg1 :
// CHECK-NEXT: %[[L:.*]] = remat.softmax_cross_entropy %[[Z]], %arg2 {remat.phase = #remat.phase<loss>} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DZ:.*]] = remat.softmax_cross_entropy_grad %[[Z]], %arg2, %[[ONE]] {remat.phase = #remat.phase<backward>} : (tensor<4x10xf32>, tensor<4xi64>, tensor<f32>) -> tensor<4x10xf32>
// CHECK-NEXT: %[[DW:.*]] = remat.matmul %arg0, %[[DZ]] {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<4x8xf32>, tensor<4x10xf32>) -> tensor<8x10xf32>
// CHECK-NEXT: return %[[L]], %[[DW]] : tensor<f32>, tensor<8x10xf32>
func.func @softmax_cross_entropy(%x: tensor<4x8xf32>, %w: tensor<8x10xf32> {remat.param}, %labels: tensor<4xi64>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x10xf32>) -> tensor<4x10xf32>
  %1 = remat.softmax_cross_entropy %0, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<f32>
  return %1 : tensor<f32>
}

// d(prediction) = mse_grad, d(target) = -mse_grad.
// CHECK-LABEL: func.func @mse(
// CHECK-NEXT: %[[L:.*]] = remat.mse %arg0, %arg1 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DP:.*]] = remat.mse_grad %arg0, %arg1, %[[ONE]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DT:.*]] = remat.neg %[[DP]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %[[L]], %[[DP]], %[[DT]] : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>
func.func @mse(%p: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.mse %p, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// An f32 loss of f16 predictions: the seed has the loss type, the gradients
// the type of the values they belong to.
// CHECK-LABEL: func.func @f16_mse_f32_loss(
// CHECK-SAME: -> (tensor<f32>, tensor<4x8xf16>)
// CHECK: %[[ONE:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DY:.*]] = remat.mse_grad %{{.*}}, %arg1, %[[ONE]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<f32>) -> tensor<4x8xf16>
// CHECK-NEXT: %[[DX:.*]] = remat.tanh_grad %[[DY]], %{{.*}} {remat.phase = #remat.phase<backward>} : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
// CHECK-NEXT: return %{{.*}}, %[[DX]] : tensor<f32>, tensor<4x8xf16>
func.func @f16_mse_f32_loss(%x: tensor<4x8xf16> {remat.param}, %t: tensor<4x8xf16>) -> tensor<f32> {
  %0 = remat.tanh %x : (tensor<4x8xf16>) -> tensor<4x8xf16>
  %1 = remat.mse %0, %t : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<f32>
  return %1 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Graph structure
//===----------------------------------------------------------------------===//

// %0 is used by tanh and by mul: its gradient is the remat.add of the two
// contributions (dmul/d%0 = dY * tanh(%0), and tanh_grad(dY * %0, tanh(%0))).
// CHECK-LABEL: func.func @fan_out(
// CHECK-NEXT: %[[H:.*]] = remat.matmul %arg0, %arg1
// CHECK-NEXT: %[[T:.*]] = remat.tanh %[[H]]
// CHECK-NEXT: %[[P:.*]] = remat.mul %[[T]], %[[H]]
// CHECK-NEXT: %[[L:.*]] = remat.mse %[[P]], %arg2 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DP:.*]] = remat.mse_grad %[[P]], %arg2, %[[ONE]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DT:.*]] = remat.mul %[[DP]], %[[H]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DH1:.*]] = remat.mul %[[DP]], %[[T]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DH2:.*]] = remat.tanh_grad %[[DT]], %[[T]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DH:.*]] = remat.add %[[DH1]], %[[DH2]] {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DW:.*]] = remat.matmul %arg0, %[[DH]] {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: return %[[L]], %[[DW]] : tensor<f32>, tensor<8x8xf32>
func.func @fan_out(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.tanh %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.mul %1, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = remat.mse %2, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %3 : tensor<f32>
}

// A value used twice by the same op: both operand gradients accumulate.
// CHECK-LABEL: func.func @self_use(
// CHECK: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DX:.*]] = remat.add %[[DY]], %[[DY]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @self_use(%x: tensor<4x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// A parameter that does not reach the loss gets a zero gradient of its type.
// CHECK-LABEL: func.func @unused_param(
// CHECK-SAME: -> (tensor<f32>, tensor<8x8xf32>, tensor<3x5xbf16>)
// CHECK: %[[DW:.*]] = remat.matmul %arg0, %{{.*}} {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: %[[Z:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<0.000000e+00> : tensor<3x5xbf16>
// CHECK-NEXT: return %{{.*}}, %[[DW]], %[[Z]] : tensor<f32>, tensor<8x8xf32>, tensor<3x5xbf16>
func.func @unused_param(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %u: tensor<3x5xbf16> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// The loss does not depend on the only parameter: no seed, no backward ops,
// only the zero gradient; the forward ops are left as they are.
// CHECK-LABEL: func.func @loss_independent_of_params(
// CHECK-NEXT: remat.matmul %arg0, %arg1
// CHECK-NEXT: %[[L:.*]] = remat.mse %arg0, %arg2 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[Z:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<0.000000e+00> : tensor<8x8xf32>
// CHECK-NEXT: return %[[L]], %[[Z]] : tensor<f32>, tensor<8x8xf32>
func.func @loss_independent_of_params(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.mse %x, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// A two-layer MLP: no gradient is built for the input %arg0 (it would be
// `remat.matmul %[[DH]], %arg1 {..., transpose_b}`), and the hidden layer's
// gradient flows through relu_grad (on the pre-activation) and sum_to (bias).
// CHECK-LABEL: func.func @mlp2(
// CHECK-SAME: -> (tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>)
// CHECK-NEXT: %[[H:.*]] = remat.matmul %arg0, %arg1
// CHECK-NEXT: %[[HB:.*]] = remat.add %[[H]], %arg2
// CHECK-NEXT: %[[R:.*]] = remat.relu %[[HB]]
// CHECK-NEXT: %[[Z:.*]] = remat.matmul %[[R]], %arg3
// CHECK-NEXT: %[[L:.*]] = remat.softmax_cross_entropy %[[Z]], %arg4 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DZ:.*]] = remat.softmax_cross_entropy_grad %[[Z]], %arg4, %[[ONE]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DR:.*]] = remat.matmul %[[DZ]], %arg3 {remat.phase = #remat.phase<backward>, transpose_b}
// CHECK-NEXT: %[[DW1:.*]] = remat.matmul %[[R]], %[[DZ]] {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: %[[DH:.*]] = remat.relu_grad %[[DR]], %[[HB]] {remat.phase = #remat.phase<backward>}
// CHECK-NEXT: %[[DB:.*]] = remat.sum_to %[[DH]] {remat.phase = #remat.phase<backward>} : (tensor<4x16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %[[DW0:.*]] = remat.matmul %arg0, %[[DH]] {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: return %[[L]], %[[DW0]], %[[DB]], %[[DW1]] : tensor<f32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x3xf32>
func.func @mlp2(%x: tensor<4x8xf32>, %w0: tensor<8x16xf32> {remat.param}, %b0: tensor<16xf32> {remat.param}, %w1: tensor<16x3xf32> {remat.param}, %labels: tensor<4xi32>) -> tensor<f32> {
  %0 = remat.matmul %x, %w0 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = remat.add %0, %b0 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = remat.relu %1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = remat.matmul %2, %w1 : (tensor<4x16xf32>, tensor<16x3xf32>) -> tensor<4x3xf32>
  %4 = remat.softmax_cross_entropy %3, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  return %4 : tensor<f32>
}

// Ops without a gradient are fine off the path from the parameters to the
// loss (arith.addf on an input); remat.keep (no results) is skipped.
// CHECK-LABEL: func.func @inactive_ops(
// CHECK-NEXT: %[[S:.*]] = arith.addf %arg0, %arg0 : tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = remat.matmul %[[S]], %arg1
// CHECK-NEXT: remat.keep %[[Y]] : tensor<4x8xf32>
// CHECK-NEXT: %[[L:.*]] = remat.mse %[[Y]], %arg2 {remat.phase = #remat.phase<loss>}
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[DY:.*]] = remat.mse_grad
// CHECK-NEXT: %[[DW:.*]] = remat.matmul %[[S]], %[[DY]] {remat.phase = #remat.phase<backward>, transpose_a}
// CHECK-NEXT: return %[[L]], %[[DW]]
func.func @inactive_ops(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = arith.addf %x, %x : tensor<4x8xf32>
  %1 = remat.matmul %0, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  remat.keep %1 : tensor<4x8xf32>
  %2 = remat.mse %1, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// Functions without remat.param arguments and declarations are left alone.
// CHECK-LABEL: func.func @no_params(
// CHECK-SAME: -> tensor<f32> {
// CHECK-NEXT: %[[L:.*]] = remat.mse %arg0, %arg1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
// CHECK-NEXT: return %[[L]] : tensor<f32>
func.func @no_params(%x: tensor<4x8xf32>, %t: tensor<4x8xf32>) -> tensor<f32> {
  %0 = remat.mse %x, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func private @declaration(tensor<4xf32> {remat.param}) -> tensor<f32>{{$}}
func.func private @declaration(tensor<4xf32> {remat.param}) -> tensor<f32>
