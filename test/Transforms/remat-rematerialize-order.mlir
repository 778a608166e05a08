// Forward ops after backward ops (docs/Scheduling.md, "Any op order"): the
// planner plans the input order with such ops pinned where they are and the
// stable forward-first re-sequencing, keeps the better plan, and when that is
// the re-sequencing the rewrite moves the ops and says so.
//
// RUN: remat-opt %s -split-input-file --remat-rematerialize=strategy=store-all --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %s -split-input-file --remat-rematerialize=strategy=store-all 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: remat-opt %s -split-input-file --remat-compare-strategies=table=- --mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=TABLE
// remat-compare-strategies runs on one function at a time, nested under
// func.func; the tool writes the table after the pipeline.
// RUN: remat-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(remat-compare-strategies{table=-}))' --mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=TABLE

// s (forward, 4 B) reads x (100 B) but comes after g1. In the input order x
// lives until s: x + y + loss + g1 = 304 at g1. Forward-first, s runs right
// after loss and x dies there: x + y + loss + s = 208, then y + loss + s + g1
// = 208 at g1 (g2 is returned, counted apart).
// CHECK: remark: plan 'store-all' (forward-first order): peak activation bytes 208 (store-all 304, ratio 0.684), total with arguments 212, recompute cost 0 (0.0% of forward), 0 recomputed ops, {{.*}}; ops re-sequenced forward-first; peak in the rewritten IR 208 bytes
// CHECK: remark: note: order: the input places 1 forward op(s) after the first backward op
// CHECK: remark: schedule verified: peak 208 bytes, 0 recomputed ops
// IR-LABEL: func.func @late_forward
// IR: remat.opaque "x"
// IR-NEXT: remat.opaque "y"
// IR-NEXT: remat.opaque "loss"
// IR-NEXT: remat.opaque "s"
// IR-NEXT: remat.opaque "g1"
// IR-NEXT: remat.opaque "g2"
// TABLE: late_forward (6 ops, forward cost 4)
// TABLE: store-all                     208   0.684              0      0.0         0 {{.*}}forward-first order
// TABLE: order: the input places 1 forward op(s) after the first backward op
func.func @late_forward(%input: tensor<0xi8>) -> tensor<4xi8> {
  %x = remat.opaque "x"(%input) {cost = 1.0 : f64} : (tensor<0xi8>) -> tensor<100xi8>
  %y = remat.opaque "y"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %loss = remat.opaque "loss"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<4xi8>
  %g1 = remat.opaque "g1"(%loss) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<4xi8>) -> tensor<100xi8>
  %s = remat.opaque "s"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<4xi8>
  %g2 = remat.opaque "g2"(%g1, %s, %y) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<4xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %g2 : tensor<4xi8>
}

// -----

// Here the input order is better: the late forward op m (a mask read only by
// the last backward op) made in the forward would live through g1; pinned
// where it is, it is made just before its reader. Input order: x + y = 200,
// loss + y + g1 = 204 at g1, y + g1 + m = 300 at m. Forward-first: y + m +
// loss + g1 = 304 at g1. Store-all keeps the input order.
// CHECK: remark: plan 'store-all': peak activation bytes 300 (store-all 300, ratio 1.000){{.*}}; peak in the rewritten IR 300 bytes
// CHECK-NOT: ops re-sequenced forward-first
// CHECK: remark: schedule verified: peak 300 bytes
func.func @late_mask(%input: tensor<0xi8>) -> tensor<4xi8> {
  %x = remat.opaque "x"(%input) {cost = 1.0 : f64} : (tensor<0xi8>) -> tensor<100xi8>
  %y = remat.opaque "y"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %loss = remat.opaque "loss"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<4xi8>
  %g1 = remat.opaque "g1"(%loss, %y) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<4xi8>, tensor<100xi8>) -> tensor<100xi8>
  %m = remat.opaque "m"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %g2 = remat.opaque "g2"(%g1, %m) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %g2 : tensor<4xi8>
}
