// Gradient check of --remat-autodiff on linalg.generic ops whose inputs are
// read through projected permutations other than the identity and trailing
// broadcasts: a transposed input (d1, d0), a row vector broadcast along the
// leading loop (d0) -> (d0), and a sum reduction of an elementwise body over
// a transposed input and a broadcast one. The per-element gradient is summed
// over the loops the input's map drops and written through that map. The
// step is compiled and run; the compiled gradient of every parameter is
// checked against central differences of the compiled loss along 4 random
// directions.
// RUN: remat-opt %s --remat-autodiff --remat-linalg-pipeline \
// RUN:   | %remat_exec main --params-from %s --seed 7 --fd 4 --fd-eps 3e-3 --fd-rtol 1e-3 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: %remat_exec check %s --mode fd --seed 7 --fd 4 --fd-eps 3e-3 --fd-rtol 1e-3 < %t.out | FileCheck %s

// CHECK-COUNT-4: ok finite difference
// CHECK: OK: 4 finite differences

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#lead = affine_map<(d0, d1) -> (d0)>
#all = affine_map<(d0, d1) -> ()>
#red_tr = affine_map<(d0, d1, d2) -> (d2, d0)>
#red_b = affine_map<(d0, d1, d2) -> (d1)>
#red_out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @step(%x: tensor<4x3xf32> {remat.param}, %w: tensor<3x4xf32> {remat.param},
                %c: tensor<4xf32> {remat.param}, %v: tensor<5x4xf32> {remat.param},
                %u: tensor<3xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  // e[i, j] = tanh(x[i, j] * w[j, i] + c[i])
  %e0 = tensor.empty() : tensor<4x3xf32>
  %e = linalg.generic {indexing_maps = [#id, #tr, #lead, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %w, %c : tensor<4x3xf32>, tensor<3x4xf32>, tensor<4xf32>) outs(%e0 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %cc: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %cc : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<4x3xf32>
  // r[i, j] = sum_k v[k, i] * u[j] * e[i, j] (v transposed, u broadcast)
  %r0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [#red_tr, #red_b, #red_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%v, %u : tensor<5x4xf32>, tensor<3xf32>) outs(%r0 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %q = arith.mulf %m, %m : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%e, %r : tensor<4x3xf32>, tensor<4x3xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
