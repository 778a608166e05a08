// RUN: remat-opt %s --remat-rematerialize=strategy=store-all 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: remat-opt %s --remat-rematerialize="strategy=greedy threshold=16" 2>&1 | FileCheck %s --check-prefix=GREEDY
// RUN: remat-opt %s --remat-rematerialize=strategy=greedy 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: remat-opt %s --remat-rematerialize=strategy=sqrt 2>&1 | FileCheck %s --check-prefix=SQRT
// RUN: remat-opt %s --remat-rematerialize="strategy=revolve slots=1" 2>&1 | FileCheck %s --check-prefix=REVOLVE
// RUN: remat-opt %s --remat-rematerialize=strategy=logn 2>&1 | FileCheck %s --check-prefix=LOGN
// RUN: remat-opt %s --remat-rematerialize=strategy=sqrt --canonicalize --cse | FileCheck %s --check-prefix=CSE
// Every strategy's rewrite passes the independent verifier with the peak the
// planner predicted.
// RUN: remat-opt %s --remat-rematerialize="strategy=greedy threshold=16" --remat-verify-schedule=budget=64 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: for s in store-all sqrt greedy logn revolve chain-opt auto; do remat-opt %s --remat-rematerialize=strategy=$s --remat-verify-schedule -o /dev/null 2>&1; done | FileCheck %s --check-prefix=ALL
// VERIFY: schedule verified: peak 64 bytes, 2 recomputed ops
// ALL-COUNT-7: schedule verified

// A 4-layer tanh chain; every activation is 16 bytes (tensor<4xf32>), the
// loss (4 bytes) and the input gradient are returned (counted apart).
// Store-all by hand: a, b, c, d (64) are live when the backward starts; the
// seed constant (4) and gd (16) make 84 at mse_grad; the first tanh_grad
// reads gd and d and writes gc: a, b, c, d, gd, gc = 96 bytes, the peak.

// STORE: remark: plan 'store-all': peak activation bytes 96
// STORE-NOT: remat.recompute

// Greedy with a 16-byte threshold closes a segment when the accumulated
// bytes exceed 16: keeps b and d, drops a and c. c is recomputed from b right
// before the tanh_grad that reads it, a from the input before the last one.
// Peak by hand: 64 bytes (b, d, gd, gc at the second tanh_grad).
// GREEDY: remark: plan 'greedy' (threshold=16): peak activation bytes 64 (store-all 96
// GREEDY-SAME: 2 recomputed ops
// GREEDY-LABEL: func.func @chain4
// GREEDY:      %[[A:.*]] = remat.tanh %arg0
// GREEDY-NEXT: %[[B:.*]] = remat.tanh %[[A]]
// GREEDY-NEXT: %[[C:.*]] = remat.tanh %[[B]]
// GREEDY-NEXT: %[[D:.*]] = remat.tanh %[[C]]
// GREEDY:      %[[GD:.*]] = remat.mse_grad %[[D]]
// GREEDY-NEXT: %[[GC:.*]] = remat.tanh_grad %[[GD]], %[[D]]
// GREEDY-NEXT: %[[RC:.*]] = remat.recompute(%[[B]])
// GREEDY-NEXT: ^bb0(%[[IN:.*]]: tensor<4xf32>):
// GREEDY-NEXT:   %[[T:.*]] = remat.tanh %[[IN]]
// GREEDY-NEXT:   remat.yield %[[T]]
// GREEDY-NEXT: }
// GREEDY-NEXT: %[[GB:.*]] = remat.tanh_grad %[[GC]], %[[RC]]
// GREEDY-NEXT: %[[GA:.*]] = remat.tanh_grad %[[GB]], %[[B]]
// GREEDY-NEXT: %[[RA:.*]] = remat.recompute(%arg0)
// GREEDY:      remat.tanh_grad %[[GA]], %[[RA]]

// The threshold search finds the same 64-byte plan and reports the threshold.
// SEARCH: remark: plan 'greedy' (threshold={{[0-9]+}} (searched {{[0-9]+}})): peak activation bytes 64

// sqrt(n): ceil(sqrt(5)) = 3 segments over the 5 forward ops; each dropped
// value is recomputed once, so the recompute count is at most the number of
// forward ops.
// SQRT: remark: plan 'sqrt' (segments=3): peak activation bytes {{(64|80)}}
// SQRT-COUNT-2: remat.recompute(

// Revolve with one checkpoint slot besides the input: the last segment's
// values are recomputed from the input or from the one checkpoint.
// REVOLVE: remark: plan 'revolve' (revolve(c=1)
// REVOLVE: remat.recompute(%arg0)

// log(n) stores O(log n) checkpoints and recomputes more than sqrt(n).
// LOGN: remark: plan 'logn'
// LOGN: remat.recompute(

// A recomputation is not merged back into the original by CSE.
// CSE: %[[ORIG:.*]] = remat.tanh %arg0
// CSE: remat.recompute(
// CSE: remat.tanh_grad

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
