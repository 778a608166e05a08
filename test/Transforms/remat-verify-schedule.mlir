// RUN: remat-opt %s --remat-verify-schedule --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// Nested under func.func (the pass checks one function at a time).
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-verify-schedule))' --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The peaks below were computed by hand (step by step in the comments); the
// memory analysis (a separate implementation) must agree with them on the
// same IR. Returned values, like arguments, are not activations.
// RUN: remat-opt %s --remat-memory-report --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// A budget equal to the largest peak passes.
// RUN: remat-opt %s --remat-verify-schedule=budget=550 --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The pass does not change the IR.
// RUN: remat-opt %s --remat-verify-schedule --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=IR

// Three-layer chain; "b" is dropped after the forward and recomputed from
// "a" for "c_grad". Live bytes per step:
//   a:100  b:300  c:350 (b dies)  b':350  c_grad:550  b_grad:400
//   a_grad:100 (its result is returned)  return:0.
// CHECK: remark: schedule verified: peak 550 bytes, 1 recomputed ops
// REPORT: remark: peak activation bytes 550 (
// IR-LABEL: func.func @chain
// IR: remat.recompute
// IR: remat.opaque "b"(%{{.*}}) {cost = 2.000000e+00 : f64, remat.phase = #remat.phase<forward>}
// IR: remat.yield
func.func @chain(%in: tensor<10xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%in) {cost = 1.0 : f64} : (tensor<10xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 2.0 : f64} : (tensor<100xi8>) -> tensor<200xi8>
  %c = remat.opaque "c"(%b) {cost = 3.0 : f64} : (tensor<200xi8>) -> tensor<50xi8>
  %r = remat.recompute(%a) : (tensor<100xi8>) -> tensor<200xi8> {
  ^bb0(%x: tensor<100xi8>):
    // The remat.* attributes of a clone do not matter.
    %b2 = remat.opaque "b"(%x) {cost = 2.0 : f64, remat.phase = #remat.phase<forward>} : (tensor<100xi8>) -> tensor<200xi8>
    remat.yield %b2 : tensor<200xi8>
  }
  %gb = remat.opaque "c_grad"(%c, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<50xi8>, tensor<200xi8>) -> tensor<200xi8>
  %ga = remat.opaque "b_grad"(%gb, %a) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<200xi8>, tensor<100xi8>) -> tensor<100xi8>
  %gi = remat.opaque "a_grad"(%ga) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<10xi8>
  return %gi : tensor<10xi8>
}

// Four-layer chain storing everything. Live bytes per step:
//   f1:100 f2:200 f3:300 f4:400 g4:410 g3:220 g2:120 g1:10 return:0.
// CHECK: remark: schedule verified: peak 410 bytes, 0 recomputed ops
// REPORT: remark: peak activation bytes 410 (
func.func @store_all(%x: tensor<8xi8>) -> tensor<10xi8> {
  %f1 = remat.opaque "f1"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %f2 = remat.opaque "f2"(%f1) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %f3 = remat.opaque "f3"(%f2) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %f4 = remat.opaque "f4"(%f3) {cost = 1.0 : f64, remat.phase = #remat.phase<loss>} : (tensor<100xi8>) -> tensor<100xi8>
  %g4 = remat.opaque "g4"(%f4, %f3) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  %g3 = remat.opaque "g3"(%g4, %f2) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>, tensor<100xi8>) -> tensor<10xi8>
  %g2 = remat.opaque "g2"(%g3, %f1) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>, tensor<100xi8>) -> tensor<10xi8>
  %g1 = remat.opaque "g1"(%g2, %x) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>, tensor<8xi8>) -> tensor<10xi8>
  return %g1 : tensor<10xi8>
}

// The same chain keeping only f2 (hinted remat.keep, which is not a use):
// f3 is recomputed from f2 and f1 from the argument. Live bytes per step:
//   f1:100 f2:200 f3:200 f4:300 f3':300 g4:310 g3:120 f1':110 g2:120 g1:10
//   return:0.
// CHECK: remark: schedule verified: peak 310 bytes, 2 recomputed ops
// REPORT: remark: peak activation bytes 310 (
func.func @checkpoint(%x: tensor<8xi8>) -> tensor<10xi8> {
  %f1 = remat.opaque "f1"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %f2 = remat.opaque "f2"(%f1) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  remat.keep %f2 : tensor<100xi8>
  %f3 = remat.opaque "f3"(%f2) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %f4 = remat.opaque "f4"(%f3) {cost = 1.0 : f64, remat.phase = #remat.phase<loss>} : (tensor<100xi8>) -> tensor<100xi8>
  %r3 = remat.recompute(%f2) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%a: tensor<100xi8>):
    %0 = remat.opaque "f3"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g4 = remat.opaque "g4"(%f4, %r3) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  %g3 = remat.opaque "g3"(%g4, %f2) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>, tensor<100xi8>) -> tensor<10xi8>
  %r1 = remat.recompute(%x) : (tensor<8xi8>) -> tensor<100xi8> {
  ^bb0(%a: tensor<8xi8>):
    %0 = remat.opaque "f1"(%a) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g2 = remat.opaque "g2"(%g3, %r1) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>, tensor<100xi8>) -> tensor<10xi8>
  %g1 = remat.opaque "g1"(%g2, %x) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>, tensor<8xi8>) -> tensor<10xi8>
  return %g1 : tensor<10xi8>
}

// A recompute of a recomputed value, a region with two ops whose
// intermediate is not yielded, and a block argument yielded through (its
// result aliases the first region's result). Live bytes per step:
//   f1:100 f2:200 f3:200; region 1: f1':200 f2':300 (f1' dies);
//   region 2: f3':300 (f3, f2', f3'); g:300 (g is returned); return:0.
// CHECK: remark: schedule verified: peak 300 bytes, 3 recomputed ops
// REPORT: remark: peak activation bytes 300 (
func.func @nested(%x: tensor<8xi8>) -> tensor<10xi8> {
  %f1 = remat.opaque "f1"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %f2 = remat.opaque "f2"(%f1) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %f3 = remat.opaque "f3"(%f2) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r2 = remat.recompute(%x) : (tensor<8xi8>) -> tensor<100xi8> {
  ^bb0(%a: tensor<8xi8>):
    %0 = remat.opaque "f1"(%a) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
    %1 = remat.opaque "f2"(%0) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %1 : tensor<100xi8>
  }
  %r3:2 = remat.recompute(%r2) : (tensor<100xi8>) -> (tensor<100xi8>, tensor<100xi8>) {
  ^bb0(%a: tensor<100xi8>):
    %0 = remat.opaque "f3"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0, %a : tensor<100xi8>, tensor<100xi8>
  }
  %g = remat.opaque "g"(%f3, %r3#0, %r3#1) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}

// Real ops: an MLP training step (as built by remat-autodiff) whose hidden
// activations are recomputed from the arguments before the weight gradient.
// f32 sizes: tensor<4x8xf32> 128 bytes, tensor<8x8xf32> 256, tensor<f32> 4.
// The returned loss %3 and gradients %6, %8 are not activations.
//   %0:128 %1:256 %2:256 %3:128 %cst:132 %4:260 %5:256
//   m:384 r:512 %6:512 %7:384 %8:128 return:0.
// CHECK: remark: schedule verified: peak 512 bytes, 2 recomputed ops
// REPORT: remark: peak activation bytes 512 (
func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32> {remat.param}, %w2: tensor<8x8xf32> {remat.param}, %t: tensor<4x8xf32>) -> (tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>) attributes {remat.training_step} {
  %0 = remat.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.matmul %1, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %3 = remat.mse %2, %t {remat.phase = #remat.phase<loss>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.000000e+00> : tensor<f32>
  %4 = remat.mse_grad %2, %t, %cst {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %5 = remat.matmul %4, %w2 {remat.phase = #remat.phase<backward>, transpose_b} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %r:2 = remat.recompute(%x, %w1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %m = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %h = remat.relu %m : (tensor<4x8xf32>) -> tensor<4x8xf32>
    remat.yield %m, %h : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %6 = remat.matmul %r#1, %4 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %7 = remat.relu_grad %5, %r#0 {remat.phase = #remat.phase<backward>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = remat.matmul %x, %7 {remat.phase = #remat.phase<backward>, transpose_a} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %3, %8, %6 : tensor<f32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// Declarations are skipped; an empty body has a zero peak.
// CHECK: remark: schedule verified: peak 0 bytes, 0 recomputed ops
// REPORT: remark: peak activation bytes 0 (
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
func.func @empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
