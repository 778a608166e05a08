// RUN: remat-opt %s --remat-cpu-vectorize | FileCheck %s
// RUN: remat-opt %s --remat-cpu-vectorize='vector-size=4' | FileCheck %s --check-prefix=FOUR
// RUN: not remat-opt %s --remat-cpu-vectorize='vector-size=0' 2>&1 | FileCheck %s --check-prefix=SIZE
// remat-compile's default: only the contractions.
// RUN: remat-opt %s --remat-cpu-vectorize='contractions-only=1' | FileCheck %s --check-prefix=CONTRACT
// The whole CPU pipeline with the upstream path leaves no vector op behind.
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='upstream-vectorize=1' | FileCheck %s --check-prefix=LLVM

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

// Elementwise: tiles of 8 along the inner dimension, one row at a time.
// CHECK-LABEL: func.func @exp
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %{{.*}} to %[[C4]] step %c1
// CHECK: scf.for %{{.*}} to %[[C16]] step %[[C8]]
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} vector<8xf32>
// CHECK: %[[E:.*]] = math.exp %[[X]] : vector<8xf32>
// CHECK: vector.transfer_write %[[E]]
// CHECK-NOT: linalg.generic
// CONTRACT-LABEL: func.func @exp
// CONTRACT: linalg.generic
// CONTRACT-NOT: vector.
// FOUR-LABEL: func.func @exp
// FOUR: math.exp %{{.*}} : vector<4xf32>
// LLVM-LABEL: llvm.func @exp
// LLVM: llvm.intr.exp(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// LLVM-NOT: vector.
func.func @exp(%a: memref<4x16xf32>, %b: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xf32>) outs(%b : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// A sum over the outer dimension: the reduction loop is tiled by 1 and
// stays outermost (the loop order of convert-linalg-to-loops); each lane is
// one output, which adds one element per step in the body's operand order.
// CHECK-LABEL: func.func @colsum
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[J:.*]] = %c0 to %c16 step %c8
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} vector<8xf32>
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} vector<8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : vector<8xf32>
// CHECK: vector.transfer_write %[[SUM]]
// CHECK-NOT: vector.reduction
// CHECK-NOT: vector.multi_reduction
func.func @colsum(%a: memref<4x16xf32>, %b: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<4x16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = arith.addf %y, %x : f32
    linalg.yield %e : f32
  }
  return
}

// A sum over the inner (unit-stride) dimension: the only parallel dimension
// is strided in the input, so the op is left to convert-linalg-to-loops;
// vectorising the reduction itself would reassociate it.
// CHECK-LABEL: func.func @rowsum
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @rowsum(%a: memref<4x16xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x16xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = arith.addf %y, %x : f32
    linalg.yield %e : f32
  }
  return
}

// An f64 matmul (no library call for it): lanes along n, the k loop
// innermost with one step each, a multiply then an add (no fma, no
// vector.contract), the row of A broadcast.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: %[[A:.*]] = vector.transfer_read {{.*}} vector<f64>
// CHECK: %[[B:.*]] = vector.transfer_read {{.*}} vector<8xf64>
// CHECK: %[[C:.*]] = vector.transfer_read {{.*}} vector<8xf64>
// CHECK: %[[AB:.*]] = vector.broadcast %[[A]] : vector<f64> to vector<8xf64>
// CHECK: %[[M:.*]] = arith.mulf %[[AB]], %[[B]] : vector<8xf64>
// CHECK: %[[S:.*]] = arith.addf %[[C]], %[[M]] : vector<8xf64>
// CHECK: vector.transfer_write %[[S]]
// CHECK-NOT: vector.contract
// CHECK-NOT: vector.fma
// CONTRACT-LABEL: func.func @matmul_f64
// CONTRACT: arith.mulf %{{.*}} : vector<8xf64>
// LLVM-LABEL: llvm.func @matmul_f64
// LLVM-NOT: fma
// LLVM: llvm.fmul {{.*}} : vector<8xf64>
// LLVM: llvm.fadd {{.*}} : vector<8xf64>
func.func @matmul_f64(%a: memref<4x8xf64>, %b: memref<8x16xf64>, %c: memref<4x16xf64>) {
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x16xf64>) outs(%c : memref<4x16xf64>)
  return
}

// 10 columns are not a multiple of 8 lanes: left for the loops.
// CHECK-LABEL: func.func @odd
// CHECK: linalg.copy
// FOUR-LABEL: func.func @odd
// FOUR: linalg.copy
func.func @odd(%a: memref<4x10xf32>, %b: memref<4x10xf32>) {
  linalg.copy ins(%a : memref<4x10xf32>) outs(%b : memref<4x10xf32>)
  return
}

// Dynamic sizes: left for the loops.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.copy
func.func @dynamic(%a: memref<?x16xf32>, %b: memref<?x16xf32>) {
  linalg.copy ins(%a : memref<?x16xf32>) outs(%b : memref<?x16xf32>)
  return
}

// SIZE: remat-cpu-vectorize: vector-size must be at least 1, not 0
