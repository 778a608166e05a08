// Gradient check of --remat-autodiff on a forward model written in upstream
// linalg/tensor/arith/math only, using every family of upstream gradient
// rules: linalg.matmul, batch_matmul, transpose, broadcast, fill; arith
// addf/subf/mulf/divf/negf/maxnumf/minimumf, select of cmpf; math exp, log,
// tanh, sqrt, rsqrt, erf, absf, powf with a constant exponent; elementwise
// linalg.generic bodies of several ops; sum reductions (of an elementwise
// body, over leading and over middle loops) and a max reduction. The step is
// compiled and run; the compiled gradient of every parameter is checked
// against central differences of the compiled loss along 4 random
// directions.
// (arith and math ops on tensors are turned into linalg.generic ops by
// remat-linalg-pipeline, as in remat-compile.)
// RUN: remat-opt %s --remat-autodiff --remat-linalg-pipeline \
// RUN:   | %remat_exec main --params-from %s --seed 3 --fd 4 --fd-eps 3e-3 --fd-rtol 1e-3 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: %remat_exec check %s --mode fd --seed 3 --fd 4 --fd-eps 3e-3 --fd-rtol 1e-3 < %t.out | FileCheck %s

// CHECK-COUNT-4: ok finite difference
// CHECK: OK: 4 finite differences

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
#all2 = affine_map<(d0, d1) -> ()>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mid = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @step(%x: tensor<4x3xf32>, %w: tensor<3x5xf32> {remat.param}, %b: tensor<5xf32> {remat.param},
                %v: tensor<2x4x3xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // Dense layer: matmul + bias broadcast by linalg.broadcast.
  %e0 = tensor.empty() : tensor<4x5xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x5xf32>) outs(%f0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %eb = tensor.empty() : tensor<4x5xf32>
  %bb = linalg.broadcast ins(%b : tensor<5xf32>) outs(%eb : tensor<4x5xf32>) dimensions = [0]
  // A smooth activation of several scalar ops: t = m + bb;
  // z = 0.5 t (1 + erf(t / sqrt 2)) + t / (1 + |t|) + rsqrt(t^2 + 1).
  %e1 = tensor.empty() : tensor<4x5xf32>
  %z = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bb : tensor<4x5xf32>, tensor<4x5xf32>) outs(%e1 : tensor<4x5xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.addf %p, %q : f32
    %c = arith.constant 0.70710678 : f32
    %h = arith.constant 0.5 : f32
    %s = arith.mulf %t, %c : f32
    %er = math.erf %s : f32
    %ep = arith.addf %er, %one : f32
    %g0 = arith.mulf %t, %ep : f32
    %g1 = arith.mulf %g0, %h : f32
    %a = math.absf %t : f32
    %d = arith.addf %a, %one : f32
    %ss = arith.divf %t, %d : f32
    %t2 = arith.mulf %t, %t : f32
    %t21 = arith.addf %t2, %one : f32
    %rs = math.rsqrt %t21 : f32
    %u0 = arith.addf %g1, %ss : f32
    %u = arith.addf %u0, %rs : f32
    linalg.yield %u : f32
  } -> tensor<4x5xf32>
  // Tensor-level arith and math.
  %ez = math.exp %z : tensor<4x5xf32>
  %two = arith.constant dense<2.0> : tensor<4x5xf32>
  %pz = math.powf %z, %two : tensor<4x5xf32>
  %l1 = arith.addf %ez, %pz : tensor<4x5xf32>
  %lg = math.log %l1 : tensor<4x5xf32>
  %th = math.tanh %z : tensor<4x5xf32>
  %mx = arith.maxnumf %th, %lg : tensor<4x5xf32>
  %mn = arith.minimumf %mx, %ez : tensor<4x5xf32>
  %cmp = arith.cmpf ogt, %z, %m : tensor<4x5xf32>
  %sel = arith.select %cmp, %mn, %th : tensor<4x5xi1>, tensor<4x5xf32>
  %sq = math.sqrt %l1 : tensor<4x5xf32>
  %q = arith.divf %sel, %sq : tensor<4x5xf32>
  %nq = arith.negf %q : tensor<4x5xf32>
  %dq = arith.subf %nq, %m : tensor<4x5xf32>
  // Transpose, and a max over the rows of the transposed value (init -inf).
  %et = tensor.empty() : tensor<5x4xf32>
  %tr = linalg.transpose ins(%dq : tensor<4x5xf32>) outs(%et : tensor<5x4xf32>) permutation = [1, 0]
  %e5 = tensor.empty() : tensor<5xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %rmax = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]}
      ins(%tr : tensor<5x4xf32>) outs(%fm : tensor<5xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %r = arith.maximumf %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  // Batched branch: v @ broadcast(w), summed over the middle loop.
  %ew = tensor.empty() : tensor<2x3x5xf32>
  %wb = linalg.broadcast ins(%w : tensor<3x5xf32>) outs(%ew : tensor<2x3x5xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<2x4x5xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %bm = linalg.batch_matmul ins(%v, %wb : tensor<2x4x3xf32>, tensor<2x3x5xf32>) outs(%f2 : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %e3 = tensor.empty() : tensor<2x5xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x5xf32>) -> tensor<2x5xf32>
  %red = linalg.generic {indexing_maps = [#id3, #mid], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%bm : tensor<2x4x5xf32>) outs(%f3 : tensor<2x5xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x5xf32>
  // Loss: sum(rmax) + sum(tanh(red)^2) (a sum reduction of an elementwise
  // body), both into scalars, added.
  %i0 = tensor.empty() : tensor<f32>
  %fl0 = linalg.fill ins(%zero : f32) outs(%i0 : tensor<f32>) -> tensor<f32>
  %s0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%rmax : tensor<5xf32>) outs(%fl0 : tensor<f32>) {
  ^bb0(%p: f32, %acc: f32):
    %r = arith.addf %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %i1 = tensor.empty() : tensor<f32>
  %fl1 = linalg.fill ins(%zero : f32) outs(%i1 : tensor<f32>) -> tensor<f32>
  %s1 = linalg.generic {indexing_maps = [#id2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%red : tensor<2x5xf32>) outs(%fl1 : tensor<f32>) {
  ^bb0(%p: f32, %acc: f32):
    %t = math.tanh %p : f32
    %t2 = arith.mulf %t, %t : f32
    %r = arith.addf %t2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss = arith.addf %s0, %s1 : tensor<f32>
  return %loss : tensor<f32>
}
