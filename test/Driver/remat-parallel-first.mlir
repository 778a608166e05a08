// RUN: remat-opt %s --remat-parallel-first | FileCheck %s

#in = affine_map<(r, p) -> (r, p)>
#out = affine_map<(r, p) -> (p)>

// A reduction-first generic is interchanged: the parallel dimension leads.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduction_first
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
func.func @reduction_first(%in: memref<8x4xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%in : memref<8x4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A named op whose parallel loops already lead is left as it is.
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
func.func @matmul(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// A full reduction (no parallel loop) runs in a one-iteration scf.parallel.
// CHECK-LABEL: func.func @full_reduction
// CHECK-DAG:  %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:  %[[C1:.*]] = arith.constant 1 : index
// CHECK:      scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK-NEXT:   linalg.reduce
func.func @full_reduction(%in: memref<8xf32>, %out: memref<f32>) {
  linalg.reduce ins(%in : memref<8xf32>) outs(%out : memref<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// Ops already inside an scf.parallel are left alone.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: iterator_types = ["reduction", "parallel"]
func.func @nested(%in: memref<8x4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
        ins(%in : memref<8x4xf32>) outs(%out : memref<4xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
    scf.reduce
  }
  return
}
