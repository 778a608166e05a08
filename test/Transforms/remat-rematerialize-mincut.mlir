// The min-cut strategy (MinCut.h), recompute limits (max-recompute=) and the
// frontier report (--remat-compare-strategies=pareto=).
//
// RUN: remat-opt %s --remat-rematerialize=strategy=mincut --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=MINCUT
// RUN: remat-opt %s '--remat-rematerialize=strategy=mincut budget=404' --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUT
// RUN: remat-opt %s '--remat-rematerialize=strategy=mincut budget=404' 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: remat-opt %s '--remat-rematerialize=max-recompute=1%' --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: remat-opt %s --remat-rematerialize=max-recompute=0 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not remat-opt %s '--remat-rematerialize=strategy=mincut budget=350' --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BELOW
// RUN: not remat-opt %s --remat-rematerialize=max-recompute=lots --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: remat-opt %s '--remat-compare-strategies=pareto=- max-recompute=1%' -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=PARETO
// The plot of the frontier (scripts/plot-pareto.py): one PNG per function.
// RUN: rm -rf %t && mkdir -p %t && remat-opt %s '--remat-compare-strategies=pareto=%t/frontier.json max-recompute=1%' -o /dev/null 2>/dev/null
// RUN: %python %remat_src/scripts/plot-pareto.py %t/frontier.json %t/plots | FileCheck %s --check-prefix=PLOT
// RUN: od -A n -t x1 -N 8 %t/plots/two_layers.png | FileCheck %s --check-prefix=PNG

// Two conv -> bn -> relu layers; the backward reads each relu output (ReLU
// and convolution gradients) and each conv output (batch-norm gradient).
// Forward cost 405. Store-all holds a1, c1, a2, c2 into the backward: with
// the loss and relu2_grad, 504 bytes at relu2_grad.
// The cut (memory only, the convs, 200 FLOPs per 100 B, banned at 4x the
// median cost per byte 0.01) saves a1 and a2 (200 B) instead of a1, c1, a2,
// c2 (400 B) and recomputes bn + relu of each layer (4 ops, cost 4) right
// before their first backward reader: a1 + a2 + c2' + loss + relu2_grad =
// 404 at relu2_grad. The local search (KeptSetSearch.h) then keeps c2 as
// well: it lives only until relu2_grad, right after the forward, so the
// peak stays 404 and the recompute falls to 2 (bn1 and relu1, before
// conv2_grad). With a budget of 404, mincut returns that plan (its least
// recompute within the budget).
// CUT: remark: plan 'mincut' (weight=0 ban=4x median searched): peak activation bytes 404 (store-all 504, ratio 0.802), total with arguments 504, recompute cost 2 (0.5% of forward), 2 recomputed ops, {{.*}}; peak in the rewritten IR 404 bytes
// CUT: remark: schedule verified: peak 404 bytes, 2 recomputed ops
// IR-LABEL: func.func @two_layers
// IR: remat.opaque "relu2_grad"
// IR-NEXT: remat.opaque "bn2_grad"
// IR-NEXT: remat.recompute
// IR-NEXT: ^bb0
// IR-NEXT: remat.opaque "bn1"
// IR-NEXT: remat.opaque "relu1"
// IR: remat.opaque "conv2_grad"
// Without a budget mincut returns the least peak of its sweep: the search
// from the cut that bans nothing (and so keeps nothing) ends keeping a2 and
// c2 and recomputing all of layer 1 (conv1, bn1, relu1: cost 202) before
// conv2_grad. a2 and c2 are dead by then, so the peak is during relu1's
// recomputation: bn2_grad + a1' + b1' + c1' = 400 B, below the cut's 404.
// MINCUT: remark: plan 'mincut' (weight=0 ban=none searched): peak activation bytes 400 (store-all 504, ratio 0.794), total with arguments 500, recompute cost 202 (49.9% of forward), 3 recomputed ops, {{.*}}; peak in the rewritten IR 400 bytes
// MINCUT: remark: schedule verified: peak 400 bytes, 3 recomputed ops

// Within 1% of the forward (4.05): the least peak, 404, at the least
// recompute among those (chain-opt: relu2 and bn2 only, cost 2).
// LIMIT: remark: plan 'chain-opt' ({{.*}}): peak activation bytes 404 (store-all 504, ratio 0.802), total with arguments 504, recompute cost 2 (0.5% of forward)
// LIMIT: remark: schedule verified: peak 404 bytes, 2 recomputed ops
// ZERO: remark: plan 'store-all': peak activation bytes 504

// mincut's plans go no lower than 400; the chain strategies go lower.
// BELOW: error: budget of 350 bytes is below what strategy 'mincut' can meet; the smallest budget remat can meet for this graph is {{(30[0-9])}} bytes
// BAD: error: max-recompute must be a non-negative percentage such as 30%, got 'lots'

// PLOT: {{.*}}/plots/two_layers.png
// PNG: 89 50 4e 47 0d 0a 1a 0a

// The frontier: store-all (504, 0), the 404-byte plan at cost 2, then lower
// peaks at more recompute (mincut's 400 at 202 among them); the chosen plan
// (least peak within 1%) is #1.
// PARETO: "function": "two_layers",
// PARETO-NEXT: "store_all_peak_bytes": 504,
// PARETO-NEXT: "forward_cost": 405,
// PARETO-NEXT: "max_recompute_percent": 1,
// PARETO-NEXT: "chosen": 1,
// PARETO-NEXT: "frontier": [
// PARETO: "strategy": "store-all",
// PARETO: "peak_activation_bytes": 504,
// PARETO: "peak_activation_bytes": 404,
// PARETO-NEXT: "peak_total_bytes"
// PARETO-NEXT: "store_all_peak_bytes": 504,
// PARETO-NEXT: "recompute_cost": 2,
// PARETO: "peak_activation_bytes": 400,
// PARETO-NEXT: "peak_total_bytes"
// PARETO-NEXT: "store_all_peak_bytes": 504,
// PARETO-NEXT: "recompute_cost": 202,
// PARETO: "peak_activation_bytes": {{30[0-9]}},
func.func @two_layers(%input: tensor<0xi8>) -> tensor<100xi8> {
  %a1 = remat.opaque "conv1"(%input) {cost = 200.0 : f64} : (tensor<0xi8>) -> tensor<100xi8>
  %b1 = remat.opaque "bn1"(%a1) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %c1 = remat.opaque "relu1"(%b1) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %a2 = remat.opaque "conv2"(%c1) {cost = 200.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b2 = remat.opaque "bn2"(%a2) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %c2 = remat.opaque "relu2"(%b2) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %loss = remat.opaque "loss"(%c2) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<4xi8>
  %gc2 = remat.opaque "relu2_grad"(%loss, %c2) {cost = 2.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<4xi8>, tensor<100xi8>) -> tensor<100xi8>
  %gb2 = remat.opaque "bn2_grad"(%gc2, %a2) {cost = 2.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi8>
  %ga2 = remat.opaque "conv2_grad"(%gb2, %c1) {cost = 2.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi8>
  %gc1 = remat.opaque "relu1_grad"(%ga2, %c1) {cost = 2.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi8>
  %gb1 = remat.opaque "bn1_grad"(%gc1, %a1) {cost = 2.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi8>
  %ga1 = remat.opaque "conv1_grad"(%gb1) {cost = 2.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
  return %ga1 : tensor<100xi8>
}
