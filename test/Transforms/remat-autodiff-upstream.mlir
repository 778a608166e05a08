// --remat-autodiff on forward models written in upstream arith/math/linalg on
// tensors: the gradient rules of GradientExternalModels.cpp. The CHECK lines
// pin the ops each rule builds; the float64 torch check (autodiff_gradcheck.py)
// compares every parameter gradient with torch autograd.
//
// RUN: remat-opt %s --remat-autodiff | FileCheck %s
// RUN: %python %S/autodiff_gradcheck.py remat-opt %s | FileCheck %s --check-prefix=NUM

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>

// Elementwise arith and math on tensors, summed into the loss by a reduction
// generic (its gradient broadcasts the loss gradient back).
// CHECK-LABEL: func.func @arith_math
// CHECK: remat.broadcast_to
// CHECK: remat.neg
// CHECK: remat.relu_grad
// CHECK: remat.tanh_grad
// CHECK: remat.div
// CHECK: remat.mul
// CHECK: return
func.func @arith_math(%x: tensor<4x3xf32>, %w: tensor<4x3xf32> {remat.param},
                      %v: tensor<4x3xf32> {remat.param}) -> tensor<f32> {
  %0 = arith.mulf %x, %w : tensor<4x3xf32>
  %1 = arith.addf %0, %v : tensor<4x3xf32>
  %2 = arith.subf %1, %w : tensor<4x3xf32>
  %e = math.exp %v : tensor<4x3xf32>
  %3 = arith.divf %2, %e : tensor<4x3xf32>
  %4 = math.tanh %3 : tensor<4x3xf32>
  %5 = arith.maximumf %4, %0 : tensor<4x3xf32>
  %6 = arith.minimumf %5, %w : tensor<4x3xf32>
  %7 = arith.negf %6 : tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%7 : tensor<4x3xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// Logarithm and square root (positive inputs in the numeric check).
// CHECK-LABEL: func.func @log_sqrt
// CHECK: remat.add
// CHECK: remat.div
// CHECK: return
func.func @log_sqrt(%w: tensor<5xf32> {remat.param}) -> tensor<f32> {
  %0 = math.log %w : tensor<5xf32>
  %1 = math.sqrt %w : tensor<5xf32>
  %2 = arith.mulf %0, %1 : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%2 : tensor<5xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// A linear layer in linalg: matmul into a zero fill, a bias added by a
// broadcasting generic (its gradient is summed over the batch), tanh and a
// squared sum. dW = X^T G and dX would be G W^T (X is not a parameter).
// CHECK-LABEL: func.func @linear
// CHECK: remat.tanh_grad
// CHECK: %[[DB:.*]] = remat.sum_to {{.*}} -> tensor<3xf32>
// CHECK: %[[DW:.*]] = remat.matmul %arg0, %{{.*}} {{{.*}}transpose_a} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: return %{{.*}}, %[[DW]], %[[DB]]
func.func @linear(%x: tensor<4x2xf32>, %w: tensor<2x3xf32> {remat.param},
                  %b: tensor<3xf32> {remat.param}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x2xf32>, tensor<2x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  %e1 = tensor.empty() : tensor<4x3xf32>
  %z = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<4x3xf32>, tensor<3xf32>) outs(%e1 : tensor<4x3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<4x3xf32>) outs(%e2 : tensor<4x3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<4x3xf32>
  %e3 = tensor.empty() : tensor<4x3xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x3xf32>) outs(%e3 : tensor<4x3xf32>) {
  ^bb0(%p: f32, %o: f32):
    %t = arith.mulf %p, %p : f32
    linalg.yield %t : f32
  } -> tensor<4x3xf32>
  %i = tensor.empty() : tensor<f32>
  %fl = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%sq : tensor<4x3xf32>) outs(%fl : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

// NUM-NOT: BAD
// NUM: ok arith_math d%arg1
// NUM: ok arith_math d%arg2
// NUM: ok log_sqrt d%arg0
// NUM: ok linear d%arg1
// NUM: ok linear d%arg2
// NUM: checked 5 gradients: all agree
