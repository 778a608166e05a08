// --remat-rematerialize with a gradient seed: marks that contradict the
// dependences on the seed, a seed on a forward-only function or inside a
// region, and a malformed seed attribute are located errors.
//
// RUN: remat-opt %s -split-input-file -verify-diagnostics --remat-rematerialize=budget=64 -o /dev/null

// The seed is the constant; %b is marked backward but reads no value that
// depends on it, and %gb reads the seed's dependents without a mark.
func.func @contradicting_marks(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{'remat.tanh' is marked #remat.phase<backward> but does not depend on the gradient seed: by its dependences it is a forward op}}
  %b = remat.tanh %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %a, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.grad_seed, remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %ga = remat.mse_grad %a, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // expected-error @+1 {{'remat.tanh_grad' depends on the gradient seed but is not marked #remat.phase<backward>: by its dependences it is a backward op}}
  %gx = remat.tanh_grad %ga, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{@dag is marked 'remat.forward_only' (no backward) but has a gradient seed at}}
func.func @dag(%x: tensor<4xf32>) -> tensor<4xf32> attributes {remat.forward_only} {
  %a = remat.tanh %x {remat.grad_seed} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @nested_seed(%x: tensor<4xf32> {remat.param}) -> (tensor<f32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    // expected-error @+1 {{the gradient seed ('remat.grad_seed') must be a top-level op of a single-block function body}}
    %s = arith.addf %p, %p {remat.grad_seed} : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %l = arith.constant dense<0.0> : tensor<f32>
  return %l, %a : tensor<f32>, tensor<4xf32>
}

// -----

func.func @not_unit(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.grad_seed' must be a unit attribute}}
  %a = remat.tanh %x {remat.grad_seed = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
