// RUN: remat-opt %s --remat-collapse-parallel-loops | FileCheck %s

// A 2-D parallel loop becomes one loop over 4 * 8 = 32 iterations; the
// original indices are recovered with div/rem.
// CHECK-LABEL: func.func @two_d
// CHECK: scf.parallel (%[[K:.*]]) = (%{{.*}}) to (%[[N:.*]]) step (%{{.*}}) {
// CHECK: arith.remsi %[[K]]
// CHECK: arith.divsi %[[K]]
// CHECK: memref.store
// CHECK-NOT: scf.parallel
func.func @two_d(%m: memref<4x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// 1-D loops stay as they are.
// CHECK-LABEL: func.func @one_d
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c4) step (%c1)
func.func @one_d(%m: memref<4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %v, %m[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
