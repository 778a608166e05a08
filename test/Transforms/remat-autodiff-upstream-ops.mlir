// --remat-autodiff on upstream ops, one case per op family: the CHECK lines
// pin the adjoint ops each rule builds. math and arith ops without a remat
// counterpart and linalg.generic bodies of several ops are differentiated per
// element: a linalg.generic that recomputes the forward scalars and applies
// the scalar rules. The gradients are checked numerically (compiled, against
// finite differences) in test/Execution/upstream-autodiff-fd.mlir.
//
// RUN: remat-opt %s -split-input-file --remat-autodiff | FileCheck %s

// math: rsqrt, erf and powf with a constant exponent on tensors.
// CHECK-LABEL: func.func @math_ops
// The sweep runs last op first. powf(x, 3): d = g * (3 * x^(3 - 1)).
// CHECK: %[[G0:.*]] = remat.broadcast_to
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[G0]] :
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[C:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[CM1:.*]] = arith.subf %[[C]], %[[ONE]] : f32
// CHECK-NEXT: %[[P:.*]] = math.powf %[[X]], %[[CM1]] : f32
// CHECK-NEXT: %[[CP:.*]] = arith.mulf %[[C]], %[[P]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[G]], %[[CP]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// erf: d = g * 2/sqrt(pi) * exp(-x^2).
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[XX:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[XX]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT: %[[K:.*]] = arith.constant 1.12837923 : f32
// CHECK-NEXT: %[[KE:.*]] = arith.mulf %[[K]], %[[E]] : f32
// CHECK-NEXT: arith.mulf %[[G]], %[[KE]] : f32
// rsqrt: d = g * (-0.5 * y^3), y recomputed.
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[Y:.*]] = math.rsqrt %[[X]] : f32
// CHECK-NEXT: %[[Y2:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK-NEXT: %[[Y3:.*]] = arith.mulf %[[Y]], %[[Y2]] : f32
// CHECK-NEXT: %[[HALF:.*]] = arith.constant -5.000000e-01 : f32
// CHECK-NEXT: %[[DY:.*]] = arith.mulf %[[HALF]], %[[Y3]] : f32
// CHECK-NEXT: arith.mulf %[[G]], %[[DY]] : f32
// x * x: the remat rule.
// CHECK: remat.mul
// CHECK: return
func.func @math_ops(%w: tensor<6xf32> {remat.param}) -> tensor<f32> {
  %sq = arith.mulf %w, %w : tensor<6xf32>
  %one = arith.constant dense<1.0> : tensor<6xf32>
  %pos = arith.addf %sq, %one : tensor<6xf32>
  %r = math.rsqrt %pos : tensor<6xf32>
  %e = math.erf %r : tensor<6xf32>
  %three = arith.constant dense<3.0> : tensor<6xf32>
  %p = math.powf %e, %three : tensor<6xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%p : tensor<6xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// arith: maxnumf, and select of a cmpf (the condition gets no gradient; the
// selected operand gets g, the other 0).
// CHECK-LABEL: func.func @arith_select
// select: its true operand gets g where the condition holds, its false
// operand where it does not.
// CHECK: %[[DM:.*]] = linalg.generic {{.*}}tensor<4xi1>
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %{{.*}}: f32, %{{.*}}: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.select %[[C]], %[[G]], %[[Z]] : f32
// CHECK: %[[DWS:.*]] = linalg.generic {{.*}}tensor<4xi1>
// CHECK-NEXT: ^bb0(%[[C:.*]]: i1, %{{.*}}: f32, %{{.*}}: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.select %[[C]], %[[Z]], %[[G]] : f32
// maxnumf(v, w): g to v where v > w, the rest to w.
// CHECK: %[[DV:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1, %[[DM]] :
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[DA:.*]] = arith.select %[[GT]], %[[G]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[DA]] : f32
// CHECK: %[[DWM:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1, %[[DM]] :
// CHECK: %[[DB:.*]] = arith.subf
// CHECK-NEXT: linalg.yield %[[DB]] : f32
// CHECK: %[[DW:.*]] = remat.add %[[DWS]], %[[DWM]]
// CHECK: return %{{.*}}, %[[DV]], %[[DW]]
func.func @arith_select(%v: tensor<4xf32> {remat.param}, %w: tensor<4xf32> {remat.param}) -> tensor<f32> {
  %m = arith.maxnumf %v, %w : tensor<4xf32>
  %c = arith.cmpf ogt, %v, %w : tensor<4xf32>
  %s = arith.select %c, %m, %w : tensor<4xi1>, tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%s : tensor<4xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// linalg: batch_matmul (dA = G B^T, dB = A^T G per batch), transpose (the
// gradient transposed back) and broadcast (summed over the added dimension
// by a reduction generic into a zero fill).
// CHECK-LABEL: func.func @linalg_ops
// The loss sums squares (a sum reduction of an elementwise body): its
// gradient is 2 x g per element, g read through the result map.
// CHECK: %[[BW:.*]] = linalg.broadcast
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: %[[DT:.*]] = linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<2x5x4xf32>, tensor<f32>)
// CHECK: %[[GT:.*]] = remat.transpose %[[DT]] {permutation = array<i64: 0, 2, 1>{{.*}}} : (tensor<2x5x4xf32>) -> tensor<2x4x5xf32>
// CHECK: %[[DA:.*]] = remat.matmul %[[GT]], %[[BW]] {{{.*}}transpose_b} : (tensor<2x4x5xf32>, tensor<2x3x5xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[DB:.*]] = remat.matmul %arg0, %[[GT]] {{{.*}}transpose_a} : (tensor<2x4x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<3x5xf32>
// CHECK: %[[DW:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[DB]] : tensor<2x3x5xf32>) outs(%[[Z]] : tensor<3x5xf32>)
// CHECK: arith.addf
// CHECK: return %{{.*}}, %[[DA]], %[[DW]]
func.func @linalg_ops(%a: tensor<2x4x3xf32> {remat.param}, %w: tensor<3x5xf32> {remat.param}) -> tensor<f32> {
  %eb = tensor.empty() : tensor<2x3x5xf32>
  %wb = linalg.broadcast ins(%w : tensor<3x5xf32>) outs(%eb : tensor<2x3x5xf32>) dimensions = [0]
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %m = linalg.batch_matmul ins(%a, %wb : tensor<2x4x3xf32>, tensor<2x3x5xf32>) outs(%f : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %et = tensor.empty() : tensor<2x5x4xf32>
  %t = linalg.transpose ins(%m : tensor<2x4x5xf32>) outs(%et : tensor<2x5x4xf32>) permutation = [0, 2, 1]
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%t : tensor<2x5x4xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A generic body of several ops (x * sigmoid-like rational, with a scalar
// constant from outside the body and one inside) is differentiated per
// element: the backward generic recomputes the forward scalars, then sweeps
// them backward; the bias, broadcast over rows by a trailing map, gets its
// gradient summed to its shape.
// CHECK-LABEL: func.func @generic_body
// CHECK: %[[DX:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ROW:.*]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[B:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[X]], %[[B]] : f32
// CHECK-NEXT: %[[A:.*]] = math.absf %[[T]] : f32
// absf: sign(t) * the adjoint.
// CHECK: arith.cmpf olt, %[[T]], %{{.*}} : f32
// CHECK: linalg.yield
// CHECK: %[[DBF:.*]] = linalg.generic
// CHECK: %[[DB:.*]] = remat.sum_to %[[DBF]] {{.*}} : (tensor<3x4xf32>) -> tensor<4xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DB]]
func.func @generic_body(%x: tensor<3x4xf32> {remat.param}, %b: tensor<4xf32> {remat.param}) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<3x4xf32>, tensor<4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.addf %p, %q : f32
    %a = math.absf %t : f32
    %d = arith.addf %a, %one : f32
    %r = arith.divf %t, %d : f32
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %r, %half : f32
    %u = arith.mulf %s, %t : f32
    linalg.yield %u : f32
  } -> tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<3x4xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// linalg.matmul with A and/or B read transposed through user-defined maps:
// C = C0 + op(A) op(B). With X = op(A), Y = op(B): dX = G Y^T, dY = X^T G,
// and a transposed operand takes the transpose of its gradient. Three
// matmuls accumulate into one result through their inits, so each gets the
// same G. Non-square shapes: a wrong transpose flag fails remat.matmul's
// verifier.
// CHECK-LABEL: func.func @matmul_transposed
// C3 = P^T Q^T: dP = (G Q)^T = Q^T G^T, dQ = (P G)^T = G^T P^T.
// CHECK: %[[DP:.*]] = remat.matmul %arg5, %[[G:.*]] {{{.*}}transpose_a, transpose_b} : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
// CHECK: %[[DQ:.*]] = remat.matmul %[[G]], %arg4 {{{.*}}transpose_a, transpose_b} : (tensor<4x5xf32>, tensor<3x4xf32>) -> tensor<5x3xf32>
// C2 = X W^T: dX = G W, dW = G^T X.
// CHECK: %[[DX:.*]] = remat.matmul %[[G]], %arg3 {remat.phase = #remat.phase<backward>} : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[DW:.*]] = remat.matmul %[[G]], %arg2 {{{.*}}transpose_a} : (tensor<4x5xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
// C1 = A^T B: dA = B G^T, dB = A G.
// CHECK: %[[DA:.*]] = remat.matmul %arg1, %[[G]] {{{.*}}transpose_b} : (tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
// CHECK: %[[DB:.*]] = remat.matmul %arg0, %[[G]] {remat.phase = #remat.phase<backward>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]], %[[DX]], %[[DW]], %[[DP]], %[[DQ]] :
#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_transposed(%a: tensor<3x4xf32> {remat.param}, %b: tensor<3x5xf32> {remat.param},
                             %x: tensor<4x3xf32> {remat.param}, %w: tensor<5x3xf32> {remat.param},
                             %p: tensor<3x4xf32> {remat.param}, %q: tensor<5x3xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %c1 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%a, %b : tensor<3x4xf32>, tensor<3x5xf32>) outs(%c0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %c2 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<4x3xf32>, tensor<5x3xf32>) outs(%c1 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %c3 = linalg.matmul indexing_maps = [#km, #nk, #mn] ins(%p, %q : tensor<3x4xf32>, tensor<5x3xf32>) outs(%c2 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%c3 : tensor<4x5xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// linalg.batch_matmul with A transposed per batch: C = C0 + A^T B per
// batch, dA = B G^T, dB = A G.
// CHECK-LABEL: func.func @batch_matmul_transposed
// CHECK: %[[DA:.*]] = remat.matmul %arg1, %[[G:.*]] {{{.*}}transpose_b} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[DB:.*]] = remat.matmul %arg0, %[[G]] {remat.phase = #remat.phase<backward>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]] :
func.func @batch_matmul_transposed(%a: tensor<2x3x4xf32> {remat.param}, %b: tensor<2x3x5xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x5xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %c = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
      ins(%a, %b : tensor<2x3x4xf32>, tensor<2x3x5xf32>) outs(%c0 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%c : tensor<2x4x5xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
