// RUN: remat-opt %s --remat-autodiff | FileCheck %s

// A function that already holds backward ops is a training step: autodiff
// leaves it alone (it would otherwise reject the two results).
// CHECK-LABEL: func.func @already_a_step
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32>)
// CHECK-COUNT-1: remat.tanh_grad
// CHECK: return
func.func @already_a_step(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %a, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %ga = remat.mse_grad %a, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}

// Without phase marks, a gradient seed (remat.grad_seed) says the function
// holds its backward already: left alone too.
// CHECK-LABEL: func.func @seeded_step
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32>)
// CHECK-NOT: remat.phase
// CHECK-COUNT-1: remat.tanh_grad
// CHECK-NOT: remat.phase
// CHECK: return
func.func @seeded_step(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %a, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.grad_seed} dense<1.0> : tensor<f32>
  %ga = remat.mse_grad %a, %t, %one : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}
