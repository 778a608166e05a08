// The remat-pareto pipeline: the (peak, recompute) frontier of every
// function as JSON (remat-compare-strategies with pareto=FILE), the IR
// unchanged.
//
// RUN: remat-opt %s '--remat-pareto=max-recompute=1%' -o - 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: remat-opt %s '--remat-pareto=max-recompute=1%' -o /dev/null 2>/dev/null | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && remat-opt %s '--remat-pareto=file=%t/f.json' -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=DEFAULT < %t/f.json
// RUN: not remat-opt %s '--remat-pareto=max-recompute=lots' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// The two conv -> bn -> relu layers of remat-rematerialize-mincut.mlir:
// store-all (504 bytes), then 404 bytes at recompute cost 2 (the plan
// chosen within 1% of the forward cost 405), then lower peaks at more
// recompute.
// CHECK: "function": "two_layers",
// CHECK-NEXT: "store_all_peak_bytes": 504,
// CHECK-NEXT: "forward_cost": 405,
// CHECK-NEXT: "max_recompute_percent": 1,
// CHECK-NEXT: "chosen": 1,
// CHECK-NEXT: "frontier": [
// CHECK: "strategy": "store-all",
// CHECK: "peak_activation_bytes": 504,
// CHECK: "peak_activation_bytes": 404,
// CHECK-NEXT: "peak_total_bytes"
// CHECK-NEXT: "store_all_peak_bytes": 504,
// CHECK-NEXT: "recompute_cost": 2,
// CHECK: "peak_activation_bytes": 400,

// The default limit is 30% (121.5 of 405): the chosen plan is still the
// 404-byte one (the 400-byte plan costs 202).
// DEFAULT: "max_recompute_percent": 30,
// DEFAULT-NEXT: "chosen": 1,

// BAD: error: max-recompute must be a non-negative percentage such as 30%, got 'lots'

// IR-LABEL: func.func @two_layers
// IR-NOT: remat.recompute
// IR: return

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
