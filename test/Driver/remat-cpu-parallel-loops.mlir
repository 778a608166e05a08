// RUN: remat-opt %s --split-input-file --pass-pipeline='builtin.module(remat-cpu-parallel-loops{min-work=1000})' | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>

// An elementwise op with 64 x 64 points: the outer loop is parallel, the
// inner one a sequential loop, when the function's call gets more than one
// thread (omp_get_max_threads, declared once and called once on entry);
// on one thread the same nest with a sequential outer loop.
// CHECK: func.func private @omp_get_max_threads() -> i32
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[N:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[N]], %[[ONE]] : i32
// CHECK: scf.if %[[SEVERAL]] {
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[C64]]) step (%[[C1]]) {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: affine.apply #{{.*}}(%[[I]])
// CHECK: affine.apply #{{.*}}(%[[J]])
// CHECK: math.tanh
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK: } else {
// CHECK-DAG: %[[D0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[D64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[D1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[K:.*]] = %[[D0]] to %[[D64]] step %[[D1]] {
// CHECK-NEXT: scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: affine.apply #{{.*}}(%[[K]])
// CHECK: affine.apply #{{.*}}(%[[L]])
// CHECK: math.tanh
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: scf.parallel
// CHECK-NOT: linalg.generic
// CHECK-NOT: omp_get_max_threads
// CHECK: return
func.func @elementwise(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// A row sum: rows in parallel, each row's sum in one thread, in order.
// Its 64 sums are 256 bytes, four cache lines: parallel only while the
// call gets at most 4 threads, so that each thread stores into lines of
// its own.
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[N:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : i32
// CHECK: %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK: %[[FEW:.*]] = arith.cmpi sle, %[[N]], %[[FOUR]] : i32
// CHECK: %[[BOTH:.*]] = arith.andi %[[SEVERAL]], %[[FEW]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK: affine.apply #{{.*}}(%[[J]])
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %arg1
func.func @row_sum(%a: memref<64x64xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(c, i, j) -> (c, i, j)>
#chan = affine_map<(c, i, j) -> (c)>

// Batch-norm statistics of 8 channels summed in f64: both sums of all
// channels lie in one cache line each, so threads sharing the channels
// would store into the same line on every step of their sums (MobileNetV2
// at 2 threads ran twice as slow as at 1). Left to convert-linalg-to-loops
// on one thread; an elementwise op of the same size in the same function
// still gets the parallel nest, with no thread bound.
// CHECK-LABEL: func.func @narrow_sums
// CHECK: %[[N:.*]] = call @omp_get_max_threads() : () -> i32
// CHECK: %[[SEVERAL:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : i32
// CHECK-NOT: arith.cmpi sle
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: scf.if %[[SEVERAL]] {
// CHECK: scf.parallel
func.func @narrow_sums(%x: memref<8x8x1024xf32>, %sum: memref<8xf64>,
                       %squares: memref<8xf64>, %y: memref<8x8x1024xf32>) {
  linalg.generic {indexing_maps = [#id, #chan, #chan], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<8x8x1024xf32>) outs(%sum, %squares : memref<8xf64>, memref<8xf64>) {
  ^bb0(%in: f32, %s: f64, %q: f64):
    %e = arith.extf %in : f32 to f64
    %s1 = arith.addf %s, %e : f64
    %e2 = arith.mulf %e, %e : f64
    %q1 = arith.addf %q, %e2 : f64
    linalg.yield %s1, %q1 : f64, f64
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<8x8x1024xf32>) outs(%y : memref<8x8x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// A reduction first (a column sum as written): left to
// convert-linalg-to-loops, no threads.
// CHECK-LABEL: func.func @reduction_first
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
func.func @reduction_first(%a: memref<64x64xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// Below min-work (16 x 16 = 256 points < 1000): stays as it is, and
// nothing asks for the thread count.
// CHECK-NOT: omp_get_max_threads
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK-NOT: omp_get_max_threads
// CHECK: linalg.generic
func.func @small(%a: memref<16x16xf32>, %b: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x16xf32>) outs(%b : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A first loop of one iteration has nothing to share; dynamic sizes have no
// static count: both stay.
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic
func.func @one_row(%a: memref<1x4096xf32>, %b: memref<1x4096xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<1x4096xf32>) outs(%b : memref<1x4096xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
func.func @dynamic(%a: memref<?x4096xf32>, %b: memref<?x4096xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x4096xf32>) outs(%b : memref<?x4096xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// Named ops too (a matmul on loops, --blas=false): rows of C in parallel,
// the k loop innermost and sequential.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.parallel
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<32x16xf32>, %b: memref<16x32xf32>, %c: memref<32x32xf32>) {
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// Buffers that are views of one arena: the views the parallel body uses,
// and the constant offsets they take, are cloned into it (so that the
// OpenMP body sees both buffers at constant offsets of one base and LLVM
// knows the stores to %s do not alias the loads of %a); the originals
// outside stay for their other users.
// CHECK-LABEL: func.func @arena_views
// CHECK: %[[A0:.*]] = memref.view %[[ARENA:.*]][%{{.*}}][] : memref<20480xi8> to memref<64x64xf32>
// CHECK: scf.parallel
// CHECK-DAG: %[[C16384:.*]] = arith.constant 16384 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[S:.*]] = memref.view %[[ARENA]][%[[C16384]]][] : memref<20480xi8> to memref<64xf32>
// CHECK-DAG: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<20480xi8> to memref<64x64xf32>
// CHECK: scf.for
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: scf.reduce
// CHECK: return %[[A0]]
func.func @arena_views(%arena: memref<20480xi8>) -> memref<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c16384 = arith.constant 16384 : index
  %a = memref.view %arena[%c0][] : memref<20480xi8> to memref<64x64xf32>
  %s = memref.view %arena[%c16384][] : memref<20480xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return %a : memref<64x64xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A module that declares omp_get_max_threads already: that declaration is
// called, no second one is made; two functions call it once each.
// CHECK: func.func private @omp_get_max_threads() -> i32
// CHECK-NOT: func.func private @omp_get_max_threads
// CHECK-LABEL: func.func @first
// CHECK: call @omp_get_max_threads()
// CHECK-NOT: call @omp_get_max_threads()
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK-LABEL: func.func @second
// CHECK: call @omp_get_max_threads()
// CHECK: scf.parallel
func.func private @omp_get_max_threads() -> i32
func.func @first(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<64x64xf32>) outs(%a : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
func.func @second(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
