// Forward-only functions (remat.forward_only, no backward ops): any value may
// be recomputed right before a later forward consumer.
//
// RUN: remat-opt %s -split-input-file --remat-memory-report --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: remat-opt %s -split-input-file --remat-rematerialize --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %s -split-input-file --remat-rematerialize 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: not remat-opt %s -split-input-file --remat-rematerialize=strategy=forward-min-peak --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMP
// RUN: not remat-opt %s -split-input-file --remat-rematerialize=budget=128 --remat-verify-schedule=budget=128 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not remat-opt %s -split-input-file --remat-rematerialize=budget=119 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BELOW
// RUN: not remat-opt %s -split-input-file --remat-rematerialize=strategy=sqrt --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SQRT
// RUN: remat-opt %s -split-input-file --remat-rematerialize=strategy=store-all --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STOREALL
// RUN: remat-opt %s -split-input-file --remat-compare-strategies=table=- --mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=TABLE
// RUN: remat-opt %s -split-input-file '--remat-rematerialize=max-recompute=100%' --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not remat-opt %s -split-input-file '--remat-rematerialize=strategy=forward-min-peak max-recompute=100%' --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: remat-opt %s -split-input-file --remat-rematerialize=max-recompute=0 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

// A big value B used right after it is made and again at the end. Store-all
// keeps B to the end; the peak is B + a1 + a2 = 140 at a2 (the 1 byte of
// `out` is returned, counted apart). Freeing B after a1 and recomputing it
// from `in` right before `out`:
//   in 1; B 101; a1 121 (B freed) -> 21; a2 41 -> 21; a3 41 -> 21;
//   B' 121 (in freed) -> 120; out 120.
// The peak is 121, at a1 and at the recomputation, for one execution of B
// (cost 3 of a forward cost of 9). No schedule goes lower: `out` needs a3 and
// an instance of B made after a1, and making it needs `in` live with them.
// STORE: remark: peak activation bytes 140 (total with arguments 141
// CHECK: remark: plan 'forward-min-peak' (least peak; {{.*}}): peak activation bytes 121 (store-all 140, ratio 0.864), total with arguments 122, recompute cost 3 (33.3% of forward), 1 recomputed ops, {{.*}}; peak in the rewritten IR 121 bytes
// CHECK: remark: schedule verified: peak 121 bytes, 1 recomputed ops
// FMP: remark: plan 'forward-min-peak' {{.*}}peak activation bytes 121 (store-all 140
// FMP: remark: schedule verified: peak 121 bytes, 1 recomputed ops
// BUDGET: remark: plan 'forward-min-peak' (budget=128; {{.*}}): peak activation bytes 121 (store-all 140
// BUDGET: remark: schedule verified: peak 121 bytes, 1 recomputed ops
// A recompute limit of 100% of the forward: the least peak is within it.
// LIMIT: remark: plan 'forward-min-peak' (least peak; {{.*}}): peak activation bytes 121 (store-all 140, ratio 0.864), total with arguments 122, recompute cost 3 (33.3% of forward)
// LIMIT: remark: schedule verified: peak 121 bytes, 1 recomputed ops
// ZERO: remark: plan 'store-all': peak activation bytes 140 (store-all 140, ratio 1.000), total with arguments 141, recompute cost 0 (0.0% of forward)
// BELOW: remat-rematerialize-forward.mlir:{{[0-9]+}}:1: error: budget of 119 bytes is below what strategy 'auto' can meet; the smallest budget remat can meet for this graph is 121 bytes (strategy 'forward-min-peak')
// SQRT: remat-rematerialize-forward.mlir:{{[0-9]+}}:1: error: strategy 'sqrt' needs a training step (forward and backward ops); this function is forward-only (remat.forward_only): use auto, forward-min-peak or store-all
// STOREALL: remark: plan 'store-all': peak activation bytes 140 (store-all 140, ratio 1.000), total with arguments 141, recompute cost 0 (0.0% of forward), 0 recomputed ops
// STOREALL: remark: schedule verified: peak 140 bytes, 0 recomputed ops
// TABLE: early_late (6 ops, forward cost 9)
// TABLE: store-all                     140   1.000              0      0.0         0
// TABLE-NEXT: forward-min-peak              121   0.864              3     33.3         1
// TABLE-NEXT: declined: sqrt, greedy, logn, revolve, chain-opt: need a training step (forward and backward ops); the graph is forward-only

// The recomputation of B sits right before `out`, a forward op, and reads
// the kept `in`; `out` reads it.
// IR-LABEL: func.func @early_late
// IR: %[[IN:.*]] = remat.opaque "in"
// IR: remat.opaque "a1"
// IR: %[[A3:.*]] = remat.opaque "a3"
// IR-NEXT: %[[B2:.*]] = remat.recompute(%[[IN]]) : (tensor<1xi8>) -> tensor<100xi8> {
// IR-NEXT: ^bb0(%[[ARG:.*]]: tensor<1xi8>):
// IR-NEXT: %[[B3:.*]] = remat.opaque "B"(%[[ARG]])
// IR-NEXT: remat.yield %[[B3]] : tensor<100xi8>
// IR-NEXT: }
// IR-NEXT: remat.opaque "out"(%[[A3]], %[[B2]])
func.func @early_late(%input: tensor<0xi8>) -> tensor<1xi8> attributes {remat.forward_only} {
  %in = remat.opaque "in"(%input) {cost = 2.0 : f64} : (tensor<0xi8>) -> tensor<1xi8>
  %b = remat.opaque "B"(%in) {cost = 3.0 : f64} : (tensor<1xi8>) -> tensor<100xi8>
  %a1 = remat.opaque "a1"(%b) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<20xi8>
  %a2 = remat.opaque "a2"(%a1) {cost = 1.0 : f64} : (tensor<20xi8>) -> tensor<20xi8>
  %a3 = remat.opaque "a3"(%a2) {cost = 1.0 : f64} : (tensor<20xi8>) -> tensor<20xi8>
  %out = remat.opaque "out"(%a3, %b) {cost = 1.0 : f64} : (tensor<20xi8>, tensor<100xi8>) -> tensor<1xi8>
  return %out : tensor<1xi8>
}

// -----

// A diamond with a fan-out and a late use: big feeds x and y (joined by z)
// and `out`. Store-all: s 8; big 108 (s freed) -> 100; x 110; y 120; z 130
// (x, y freed) -> 110; w 120 -> 110; out 110: 130 at z.
// Dropping big alone (x, right after it, reads the original; big is
// recomputed from the kept s before y and before out) gives 128 at y
// (s + x + big' + y), cost 2 * 5; dropping s too (recomputed with big, freed
// right after) gives 120 at y (x + big' + y), cost 2 * (5 + 1). 120 is the
// least any schedule reaches: y needs big, and x (or y) is live with it.
// STORE: remark: peak activation bytes 130 (total with arguments 134
// CHECK: remark: plan 'forward-min-peak' (least peak; {{.*}}): peak activation bytes 120 (store-all 130, ratio 0.923), total with arguments 124, recompute cost 12 (109.1% of forward), 4 recomputed ops, {{.*}}; peak in the rewritten IR 120 bytes
// CHECK: remark: schedule verified: peak 120 bytes, 4 recomputed ops
// FMP: remark: plan 'forward-min-peak' {{.*}}peak activation bytes 120 (store-all 130
// A budget of 128 is met by dropping big alone, for less recompute.
// BUDGET: remark: plan 'forward-min-peak' (budget=128; {{.*}}): peak activation bytes 128 (store-all 130, ratio 0.985), total with arguments 132, recompute cost 10 (90.9% of forward), 2 recomputed ops
// BUDGET: remark: schedule verified: peak 128 bytes, 2 recomputed ops
// A recompute limit of 100%: the least peak (120, 109.1%) is above it; the
// budget sweep between it and store-all (budgets 121..128) finds the plan of
// budget 128, the least peak within the limit (before, the limit returned the
// least peak regardless).
// LIMIT: remark: plan 'forward-min-peak' (budget=128; {{.*}}): peak activation bytes 128 (store-all 130, ratio 0.985), total with arguments 132, recompute cost 10 (90.9% of forward), 2 recomputed ops
// LIMIT: remark: schedule verified: peak 128 bytes, 2 recomputed ops
// ZERO: remark: plan 'store-all': peak activation bytes 130 (store-all 130, ratio 1.000)
// BELOW: remat-rematerialize-forward.mlir:{{[0-9]+}}:1: error: budget of 119 bytes is below what strategy 'auto' can meet; the smallest budget remat can meet for this graph is 120 bytes (strategy 'forward-min-peak')
// STOREALL: remark: schedule verified: peak 130 bytes, 0 recomputed ops

// Both recomputations (s then big, in one region, s's own result not
// yielded) sit right before the forward ops y and out.
// IR-LABEL: func.func @diamond
// IR: %[[X:.*]] = remat.opaque "x"
// IR-NEXT: %[[BIG2:.*]] = remat.recompute(%{{.*}}) : (tensor<0xi8>) -> tensor<100xi8> {
// IR-NEXT: ^bb0(%[[IN2:.*]]: tensor<0xi8>):
// IR-NEXT: %[[S2:.*]] = remat.opaque "s"(%[[IN2]])
// IR-NEXT: %[[BIG3:.*]] = remat.opaque "big"(%[[S2]])
// IR-NEXT: remat.yield %[[BIG3]] : tensor<100xi8>
// IR-NEXT: }
// IR-NEXT: remat.opaque "y"(%[[BIG2]])
// IR-NEXT: remat.opaque "z"(%[[X]],
// IR-NEXT: %[[W:.*]] = remat.opaque "w"
// IR-NEXT: %[[BIG4:.*]] = remat.recompute(%{{.*}}) : (tensor<0xi8>) -> tensor<100xi8> {
// IR: remat.opaque "out"(%[[W]], %[[BIG4]])
func.func @diamond(%input: tensor<0xi8>) -> tensor<4xi8> attributes {remat.forward_only} {
  %s = remat.opaque "s"(%input) {cost = 1.0 : f64} : (tensor<0xi8>) -> tensor<8xi8>
  %big = remat.opaque "big"(%s) {cost = 5.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %x = remat.opaque "x"(%big) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<10xi8>
  %y = remat.opaque "y"(%big) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<10xi8>
  %z = remat.opaque "z"(%x, %y) {cost = 1.0 : f64} : (tensor<10xi8>, tensor<10xi8>) -> tensor<10xi8>
  %w = remat.opaque "w"(%z) {cost = 1.0 : f64} : (tensor<10xi8>) -> tensor<10xi8>
  %out = remat.opaque "out"(%w, %big) {cost = 1.0 : f64} : (tensor<10xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %out : tensor<4xi8>
}

// -----

// Without the attribute a function without backward ops is not planned (it
// could be a model that autodiff has not differentiated yet); under a budget
// that is an error (hence `not` on the BUDGET RUN line).
// BUDGET: error: budget of 128 bytes on @not_marked, which has no backward ops (#remat.phase<backward>), no gradient seed (remat.grad_seed, grad-seed=) and is not a forward-only graph (remat.forward_only): cannot infer its forward/backward split: it returns 1 value(s)
// IR-LABEL: func.func @not_marked
// IR-NOT: remat.recompute
// IR: return
func.func @not_marked(%input: tensor<0xi8>) -> tensor<1xi8> {
  %in = remat.opaque "in"(%input) {cost = 2.0 : f64} : (tensor<0xi8>) -> tensor<1xi8>
  %b = remat.opaque "B"(%in) {cost = 3.0 : f64} : (tensor<1xi8>) -> tensor<100xi8>
  %a1 = remat.opaque "a1"(%b) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<20xi8>
  %out = remat.opaque "out"(%a1, %b) {cost = 1.0 : f64} : (tensor<20xi8>, tensor<100xi8>) -> tensor<1xi8>
  return %out : tensor<1xi8>
}

// -----

// forward-min-peak declines training steps (hence `not` on its RUN line).
// FMP: remat-rematerialize-forward.mlir:{{[0-9]+}}:1: error: strategy 'forward-min-peak' needs a forward-only function (remat.forward_only, no backward ops); this one is a training step
func.func @training(%x: tensor<4xf32> {remat.param}, %t: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %a = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %loss = remat.mse %a, %t {remat.phase = #remat.phase<loss>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %one = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
  %ga = remat.mse_grad %a, %t, %one {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %gx = remat.tanh_grad %ga, %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %loss, %gx : tensor<f32>, tensor<4xf32>
}
