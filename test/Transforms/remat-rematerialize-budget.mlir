// RUN: remat-opt %s --remat-rematerialize=budget=48 --remat-verify-schedule=budget=48 -split-input-file 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: remat-opt %s --remat-rematerialize=budget=96 -split-input-file 2>&1 | FileCheck %s --check-prefix=LOOSE
// RUN: not remat-opt %s --remat-rematerialize=budget=47 -split-input-file 2>&1 | FileCheck %s --check-prefix=BELOW
// RUN: not remat-opt %s --remat-rematerialize="strategy=sqrt budget=64" -split-input-file 2>&1 | FileCheck %s --check-prefix=SQRTBELOW
// RUN: not remat-opt %s --remat-rematerialize=strategy=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS

// The 4-layer tanh chain of remat-rematerialize.mlir (16-byte activations).
// The first tanh_grad needs gd, d and gc at once, so no schedule can go below
// 48 bytes; recomputing everything from the input reaches it.

// A budget exactly at the smallest plan's peak is accepted and verified.
// EXACT: remark: plan 'chain-opt' (least memory; {{.*}}): peak activation bytes 48
// EXACT: schedule verified: peak 48 bytes

// With room for everything, the budget driver keeps everything (least
// recompute).
// LOOSE: remark: plan 'store-all': peak activation bytes 96

// One byte less: a located error naming the smallest feasible budget.
// BELOW: remat-rematerialize-budget.mlir:27:1: error: budget of 47 bytes is below what strategy 'auto' can meet; the smallest budget remat can meet for this graph is 48 bytes

// A fixed strategy that cannot meet the budget also names the minimum over
// all strategies.
// SQRTBELOW: error: budget of 64 bytes is below what strategy 'sqrt' can meet; the smallest budget remat can meet for this graph is 48 bytes

// BOGUS: error: unknown strategy 'bogus'; expected one of: auto, store-all, sqrt, greedy, logn, revolve, chain-opt
func.func @chain4(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.tanh %b : (tensor<4xf32>) -> tensor<4xf32>
  %d = remat.tanh %c : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %d, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %gd = remat.mse_grad %d, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gc = remat.tanh_grad %gd, %d {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gb = remat.tanh_grad %gc, %c {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %ga = remat.tanh_grad %gb, %b {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}
