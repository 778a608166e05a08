// Gradient check of --remat-autodiff on product reductions (a
// linalg.generic whose body yields `mulf` of its input and the
// accumulator): dx = g * init * (the product of the other elements),
// computed from the product of the nonzero elements and their count of zeros
// so that a zero element gets the product of the others and no 0 / 0 arises.
// Rows of a*a + 0.5 (no zeros) are multiplied over the columns, scaled by an
// init of 2; rows of relu(b) (exact zeros where b < 0, whose gradient must be
// finite: relu' = 0 times it) over the columns too. The step is compiled and
// run; the compiled gradient of every parameter is checked against central
// differences of the compiled loss along 4 random directions.
// RUN: remat-opt %s --remat-autodiff --remat-linalg-pipeline \
// RUN:   | %remat_exec main --params-from %s --seed 11 --fd 4 --fd-eps 1e-3 --fd-rtol 1e-3 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: %remat_exec check %s --mode fd --seed 11 --fd 4 --fd-eps 1e-3 --fd-rtol 1e-3 < %t.out | FileCheck %s

// CHECK-COUNT-4: ok finite difference
// CHECK: OK: 4 finite differences

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#v = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @step(%a: tensor<5x3xf32> {remat.param}, %b: tensor<4x3xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %e0 = tensor.empty() : tensor<5x3xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<5x3xf32>) outs(%e0 : tensor<5x3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %sq = arith.mulf %p, %p : f32
    %s = arith.addf %sq, %half : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  %i0 = tensor.empty() : tensor<5xf32>
  %f0 = linalg.fill ins(%two : f32) outs(%i0 : tensor<5xf32>) -> tensor<5xf32>
  %px = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<5x3xf32>) outs(%f0 : tensor<5xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %m = arith.mulf %p, %acc : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  %e1 = tensor.empty() : tensor<4x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x3xf32>) outs(%e1 : tensor<4x3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x3xf32>
  %i1 = tensor.empty() : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %f1 = linalg.fill ins(%one : f32) outs(%i1 : tensor<4xf32>) -> tensor<4xf32>
  %py = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x3xf32>) outs(%f1 : tensor<4xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %m = arith.mulf %p, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %l0 = linalg.generic {indexing_maps = [#v, #all], iterator_types = ["reduction"]}
      ins(%px : tensor<5xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%p: f32, %acc: f32):
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#v, #all], iterator_types = ["reduction"]}
      ins(%py : tensor<4xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%p: f32, %acc: f32):
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
