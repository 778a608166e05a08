// --remat-rematerialize on functions without #remat.phase annotations whose
// forward/backward split cannot be inferred: with a budget (or loss-result=)
// the pass fails with a located error saying why, never a silent success.
//
// RUN: remat-opt %s -split-input-file -verify-diagnostics --remat-rematerialize=budget=1024 -o /dev/null
// RUN: not remat-opt %s -split-input-file --remat-rematerialize=loss-result=3 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=INDEX
// (Without a budget such functions are left alone: @not_marked in
// remat-rematerialize-forward.mlir.)

// A forward computation with one result: no backward, not forward-only.
// expected-error @+1 {{budget of 1024 bytes on @unmarked, which has no backward ops (#remat.phase<backward>), no gradient seed (remat.grad_seed, grad-seed=) and is not a forward-only graph (remat.forward_only): cannot infer its forward/backward split: it returns 1 value(s), and a training step returns its loss and at least one gradient}}
func.func @unmarked(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = remat.tanh %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.exp %0 : (tensor<16xf32>) -> tensor<16xf32>
  return %1 : tensor<16xf32>
}
// INDEX: error: loss-result=3 on @unmarked, which has no backward ops (#remat.phase<backward>), no gradient seed (remat.grad_seed, grad-seed=) and is not a forward-only graph (remat.forward_only): cannot infer its forward/backward split: loss-result=3 but it returns 1 values

// -----

// Two results, none of them a scalar float: which one is the loss?
// expected-error @+1 {{cannot infer its forward/backward split: no returned value is a scalar float (the loss); name it with loss-result=}}
func.func @no_scalar_loss(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = remat.tanh %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.exp %0 : (tensor<16xf32>) -> tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<16xf32>
}

// -----

// Every op computes the loss: nothing is backward.
// expected-error @+1 {{cannot infer its forward/backward split: every op computes the loss (result #0): there is no backward}}
func.func @all_forward(%x: tensor<16xf32>, %t: tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>) {
  %0 = remat.tanh %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.mse %0, %t : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
  return %1, %0 : tensor<f32>, tensor<16xf32>
}

// -----

// The loss is an argument, not computed by the body.
// expected-error @+1 {{cannot infer its forward/backward split: the loss (result #0) is not computed by an op of the body}}
func.func @loss_is_argument(%l: tensor<f32>, %x: tensor<16xf32>) -> (tensor<f32>, tensor<16xf32>) {
  %0 = remat.tanh %x : (tensor<16xf32>) -> tensor<16xf32>
  return %l, %0 : tensor<f32>, tensor<16xf32>
}
