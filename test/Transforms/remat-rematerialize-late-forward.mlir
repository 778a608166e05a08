// Late forward ops that auto drops and recomputes (docs/Scheduling.md, "Any
// op order"): a forward op placed after the first backward op still runs
// where the input places it, and auto's search within the budget may drop
// its value and recompute it right before a later reader, from values live
// there. The verifier accepts the rewritten IR.
//
// RUN: remat-opt %s --remat-rematerialize=budget=404 --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %s --remat-rematerialize=budget=404 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: remat-opt %s --remat-rematerialize=budget=500 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STORE

// cdf (cheap) and pdf (dear) read x after g1, as AOTAutograd places the
// pieces of a GELU derivative. Kept where it is, cdf lives from its op to
// out: x + g1 + cdf + pdf + t = 500 at t, and the pinned input order cannot
// go lower. Forward-first meets 404 bytes only by recomputing pdf and cdf
// (cost 501). Dropped, cdf's original has no reader left and it is
// recomputed from x before out: 400 at t, the peak 404 at g1 (x + a + loss +
// g1), for a recompute cost of 1, in the input order.
// CHECK: remark: plan '{{.*}}late forward values droppable): peak activation bytes 404 (store-all 500, ratio 0.808), total with arguments 408, recompute cost 1 (0.0% of forward), 1 recomputed ops
// CHECK-NOT: ops re-sequenced forward-first
// CHECK-SAME: peak in the rewritten IR 404 bytes
// CHECK: remark: schedule verified: peak 404 bytes, 1 recomputed ops
// IR-LABEL: func.func @late_cdf
// IR: %[[X:.*]] = remat.opaque "x"
// IR: remat.opaque "cdf"(%[[X]])
// IR: %[[T:.*]] = remat.opaque "t"
// IR-NEXT: %[[R:.*]] = remat.recompute(%[[X]])
// IR-NEXT: ^bb0(%[[ARG:.*]]: tensor<100xi8>):
// IR-NEXT: %[[C:.*]] = remat.opaque "cdf"(%[[ARG]])
// IR-NEXT: remat.yield %[[C]]
// IR: remat.opaque "out"(%[[T]], %[[R]], %[[X]])
// At a budget of 500 store-all fits: nothing is dropped.
// STORE: remark: plan 'store-all': peak activation bytes 500 (store-all 500, ratio 1.000)
func.func @late_cdf(%input: tensor<0xi8>) -> tensor<4xi8> {
  %x = remat.opaque "x"(%input) {cost = 1000.0 : f64} : (tensor<0xi8>) -> tensor<100xi8>
  %a = remat.opaque "a"(%x) {cost = 1000.0 : f64} : (tensor<100xi8>) -> tensor<200xi8>
  %loss = remat.opaque "loss"(%a) {cost = 1.0 : f64} : (tensor<200xi8>) -> tensor<4xi8>
  %g1 = remat.opaque "g1"(%loss, %a) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<4xi8>, tensor<200xi8>) -> tensor<100xi8>
  %cdf = remat.opaque "cdf"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %pdf = remat.opaque "pdf"(%x) {cost = 500.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %t = remat.opaque "t"(%g1, %pdf) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi8>
  %out = remat.opaque "out"(%t, %cdf, %x) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %out : tensor<4xi8>
}
