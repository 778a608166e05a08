// remat-cpu-vectorize with min-work: the vectorised ops that
// remat-cpu-parallel-loops would share among threads get their outermost
// tile loop as an scf.parallel under its thread test.
// RUN: remat-opt %s --remat-cpu-vectorize='min-work=1000' | FileCheck %s
// Without min-work (the default, -1) every tile loop stays sequential.
// RUN: remat-opt %s --remat-cpu-vectorize | FileCheck %s --check-prefix=SEQ
// Both passes: one omp_get_max_threads() call per function, and the op the
// vectoriser leaves goes to remat-cpu-parallel-loops as before.
// RUN: remat-opt %s --remat-cpu-vectorize='min-work=1000' --remat-cpu-parallel-loops='min-work=1000' | FileCheck %s --check-prefix=BOTH
// The whole CPU pipeline: the vector loops in an OpenMP worksharing loop;
// parallel-threshold=-1 (no OpenMP) gives none.
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='upstream-vectorize=1 parallel-threshold=1000' | FileCheck %s --check-prefix=OMP
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='upstream-vectorize=1 parallel-threshold=-1' | FileCheck %s --check-prefix=NOOMP

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// CHECK: func.func private @omp_get_max_threads() -> i32
// CHECK-LABEL: func.func @exp
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[N:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[N]], %[[ONE]] : i32
// CHECK-NOT: arith.cmpi sle
// CHECK: scf.if %[[SEVERAL]] {
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.subview %arg0[%[[I]], %[[J]]] [1, 8]
// CHECK: memref.subview %arg1[%[[I]], %[[J]]] [1, 8]
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} vector<8xf32>
// CHECK: %[[E:.*]] = math.exp %[[X]] : vector<8xf32>
// CHECK: vector.transfer_write %[[E]]
// CHECK: scf.reduce
// CHECK: } else {
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK-NOT: scf.parallel
// CHECK-NOT: linalg.generic
// CHECK: return
// SEQ-LABEL: func.func @exp
// SEQ-NOT: omp_get_max_threads
// SEQ-NOT: scf.if
// SEQ-NOT: scf.parallel
// SEQ: math.exp %{{.*}} : vector<8xf32>
// SEQ: return
// OMP-LABEL: llvm.func @exp
// OMP: llvm.call @omp_get_max_threads()
// OMP: omp.parallel
// OMP: omp.wsloop
// OMP: llvm.intr.exp(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// OMP: llvm.return
// NOOMP-LABEL: llvm.func @exp
// NOOMP-NOT: omp.
// NOOMP: llvm.intr.exp(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// NOOMP-NOT: omp.
// NOOMP: llvm.return
func.func @exp(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// An op with a reduction: parallel only while the threads' output rows are
// a cache line apart (16 rows of 16 f64: 2048 bytes, 32 threads), as in
// remat-cpu-parallel-loops; the k loop stays in each tile, in order.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: %[[BOUND:.*]] = arith.constant 32 : i32
// CHECK: %[[N:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : i32
// CHECK: %[[FEW:.*]] = arith.cmpi sle, %[[N]], %[[BOUND]] : i32
// CHECK: %[[AND:.*]] = arith.andi %[[SEVERAL]], %[[FEW]] : i1
// CHECK: scf.if %[[AND]] {
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1
// CHECK: arith.mulf %{{.*}} : vector<8xf64>
// CHECK: } else {
// CHECK: arith.mulf %{{.*}} : vector<8xf64>
// CHECK: return
func.func @matmul_f64(%a: memref<16x256xf64>, %b: memref<256x16xf64>, %c: memref<16x16xf64>) {
  linalg.matmul ins(%a, %b : memref<16x256xf64>, memref<256x16xf64>) outs(%c : memref<16x16xf64>)
  return
}

// Below min-work (512 points), a reduction first, one tile along the first
// dimension, or nested in a loop: vectorised, sequential.
// CHECK-LABEL: func.func @sequential
// CHECK-NOT: omp_get_max_threads
// CHECK: vector.transfer_write
// CHECK-NOT: omp_get_max_threads
// CHECK-NOT: scf.if
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @sequential(%a: memref<4x128xf32>, %b: memref<4x128xf32>,
                      %c: memref<64x64xf32>, %d: memref<64xf32>,
                      %e: memref<2048xf32>, %f: memref<2048xf32>,
                      %g: memref<256x8xf32>, %h: memref<256x8xf32>) {
  linalg.copy ins(%a : memref<4x128xf32>) outs(%b : memref<4x128xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%d : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %y, %x : f32
    linalg.yield %s : f32
  }
  // 8 x 256, lanes along the first dimension (the unit-stride one): one
  // tile.
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%g : memref<256x8xf32>) outs(%h : memref<256x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  }
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.copy ins(%e : memref<2048xf32>) outs(%f : memref<2048xf32>)
  }
  return
}

// The vectoriser takes the copy; remat-cpu-parallel-loops the 10-column
// one (not a multiple of 8 lanes), under the same call.
// BOTH-LABEL: func.func @mixed
// BOTH-COUNT-1: call @omp_get_max_threads()
// BOTH-NOT: call @omp_get_max_threads()
// BOTH: scf.parallel
// BOTH: vector.transfer_write
// BOTH: scf.parallel
// BOTH: memref.store
// BOTH-NOT: call @omp_get_max_threads()
// BOTH: return
func.func @mixed(%a: memref<128x64xf32>, %b: memref<128x64xf32>,
                 %c: memref<128x10xf32>, %d: memref<128x10xf32>) {
  linalg.copy ins(%a : memref<128x64xf32>) outs(%b : memref<128x64xf32>)
  linalg.copy ins(%c : memref<128x10xf32>) outs(%d : memref<128x10xf32>)
  return
}
