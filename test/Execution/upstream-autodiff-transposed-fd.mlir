// Gradient check of --remat-autodiff on linalg.matmul and
// linalg.batch_matmul with user-defined indexing maps that read A and/or B
// transposed: C = C0 + op(A) op(B) gets dA, dB from remat.matmuls with
// transpose flags (GradientExternalModels.cpp). Three matmuls (A^T B, X W^T,
// P^T Q^T) accumulate into one result through their inits, two batch
// matmuls (E^T F per batch, G H^T per batch) into another; the loss sums the
// squares of both (so every gradient depends on every parameter). The step
// is compiled and run; the compiled gradient of every parameter is checked
// against central differences of the compiled loss along 4 random
// directions.
// RUN: remat-opt %s --remat-autodiff --remat-linalg-pipeline \
// RUN:   | %remat_exec main --params-from %s --seed 5 --fd 4 --fd-eps 3e-3 --fd-rtol 1e-3 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: %remat_exec check %s --mode fd --seed 5 --fd 4 --fd-eps 3e-3 --fd-rtol 1e-3 < %t.out | FileCheck %s

// CHECK-COUNT-4: ok finite difference
// CHECK: OK: 4 finite differences

#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#bkm = affine_map<(b, m, n, k) -> (b, k, m)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#all2 = affine_map<(d0, d1) -> ()>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#all3 = affine_map<(d0, d1, d2) -> ()>
func.func @step(%a: tensor<3x4xf32> {remat.param}, %b: tensor<3x5xf32> {remat.param},
                %x: tensor<4x3xf32> {remat.param}, %w: tensor<5x3xf32> {remat.param},
                %p: tensor<3x4xf32> {remat.param}, %q: tensor<5x3xf32> {remat.param},
                %e: tensor<2x3x4xf32> {remat.param}, %f: tensor<2x3x5xf32> {remat.param},
                %g: tensor<2x4x3xf32> {remat.param}, %h: tensor<2x5x3xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x5xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %c1 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%a, %b : tensor<3x4xf32>, tensor<3x5xf32>) outs(%c0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %c2 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<4x3xf32>, tensor<5x3xf32>) outs(%c1 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %c3 = linalg.matmul indexing_maps = [#km, #nk, #mn] ins(%p, %q : tensor<3x4xf32>, tensor<5x3xf32>) outs(%c2 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %e1 = tensor.empty() : tensor<2x4x5xf32>
  %d0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %d1 = linalg.batch_matmul indexing_maps = [#bkm, #bkn, #bmn] ins(%e, %f : tensor<2x3x4xf32>, tensor<2x3x5xf32>) outs(%d0 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %d2 = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn] ins(%g, %h : tensor<2x4x3xf32>, tensor<2x5x3xf32>) outs(%d1 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %l0 = linalg.generic {indexing_maps = [#id2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%c3 : tensor<4x5xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id3, #all3], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%d2 : tensor<2x4x5xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
