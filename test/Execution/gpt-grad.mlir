// Gradient check of a GPT-style training step: token embedding tied with the
// output projection, position embedding added by broadcasting, 2-head causal
// attention (dense layers as 3-D x 2-D matmuls, heads split by reshape and
// transpose, 4-D batched q k^T, scaled, masked softmax, dropout at rate 0.5),
// a gelu MLP with a rate-0 dropout, residual adds and softmax cross-entropy.
// --remat-autodiff builds the step; loss and all gradients are compared with
// torch autograd (float64) and with central differences of the compiled
// loss along 4 random directions. The backward applies the forward's dropout masks again (same seed),
// so a mask that were not reproduced exactly would fail the comparison.
// RUN: remat-opt %s --remat-autodiff --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --params-from %s --seed 2 --int-high 0=11 --int-high 1=11 --input 2=20251122 --scale 0.5 --fd 4 --fd-eps 3e-3 --fd-floor 1e-4 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --mode grad --seed 2 --int-high 0=11 --int-high 1=11 --input 2=20251122 --scale 0.5 --fd 4 --fd-eps 3e-3 --fd-floor 1e-4 < %t.out \
// RUN:   | FileCheck %s

// CHECK: ok loss
// CHECK-COUNT-9: ok d/d arg
// CHECK-COUNT-4: ok finite difference
// CHECK: OK: 10 tensors
func.func @gpt(%tok: tensor<2x4xi64>, %lab: tensor<2x4xi64>, %seed: tensor<i64>,
               %wte: tensor<11x8xf32> {remat.param}, %wpe: tensor<4x8xf32> {remat.param},
               %wq: tensor<8x8xf32> {remat.param}, %wk: tensor<8x8xf32> {remat.param},
               %wv: tensor<8x8xf32> {remat.param}, %wo: tensor<8x8xf32> {remat.param},
               %w1: tensor<8x16xf32> {remat.param}, %b1: tensor<16xf32> {remat.param},
               %w2: tensor<16x8xf32> {remat.param}) -> tensor<f32> {
  %e = remat.embedding %wte, %tok : (tensor<11x8xf32>, tensor<2x4xi64>) -> tensor<2x4x8xf32>
  %h = remat.add %e, %wpe : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %q = remat.matmul %h, %wq : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %k = remat.matmul %h, %wk : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %v = remat.matmul %h, %wv : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %q4 = remat.reshape %q : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %k4 = remat.reshape %k : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %v4 = remat.reshape %v : (tensor<2x4x8xf32>) -> tensor<2x4x2x4xf32>
  %qh = remat.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %kh = remat.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %vh = remat.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x4x2x4xf32>) -> tensor<2x2x4x4xf32>
  %s = remat.matmul %qh, %kh {transpose_b} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %scale = arith.constant dense<0.5> : tensor<f32>
  %ss = remat.mul %s, %scale : (tensor<2x2x4x4xf32>, tensor<f32>) -> tensor<2x2x4x4xf32>
  %mask = arith.constant dense<[[0.0, -1.0e4, -1.0e4, -1.0e4], [0.0, 0.0, -1.0e4, -1.0e4],
                                [0.0, 0.0, 0.0, -1.0e4], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %sm = remat.add %ss, %mask : (tensor<2x2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = remat.softmax %sm : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %pd = remat.dropout %p, %seed {rate = 5.000000e-01 : f64} : (tensor<2x2x4x4xf32>, tensor<i64>) -> tensor<2x2x4x4xf32>
  %a = remat.matmul %pd, %vh : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %at = remat.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x2x4x4xf32>) -> tensor<2x4x2x4xf32>
  %a3 = remat.reshape %at : (tensor<2x4x2x4xf32>) -> tensor<2x4x8xf32>
  %o = remat.matmul %a3, %wo : (tensor<2x4x8xf32>, tensor<8x8xf32>) -> tensor<2x4x8xf32>
  %h2 = remat.add %h, %o : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %f1 = remat.matmul %h2, %w1 : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  %f2 = remat.add %f1, %b1 : (tensor<2x4x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %f3 = remat.gelu %f2 : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %f4 = remat.dropout %f3, %seed {rate = 0.000000e+00 : f64} : (tensor<2x4x16xf32>, tensor<i64>) -> tensor<2x4x16xf32>
  %f5 = remat.matmul %f4, %w2 : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %h3 = remat.add %h2, %f5 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %logits = remat.matmul %h3, %wte {transpose_b} : (tensor<2x4x8xf32>, tensor<11x8xf32>) -> tensor<2x4x11xf32>
  %loss = remat.softmax_cross_entropy %logits, %lab : (tensor<2x4x11xf32>, tensor<2x4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
