// body-work in remat-cpu-vectorize and remat-cpu-row-reductions, as in
// remat-cpu-parallel-loops: min-work counts iteration points times the work
// of one point (operands, operations, 16 per math function). Both ops here
// have 4,096 points, under min-work=8192: sequential by points alone;
// with their exp (2 operands + 16, and + 1 for the row sum's add) over
// 70,000 units of work, parallel.
// RUN: remat-opt %s --remat-cpu-vectorize='min-work=8192' --remat-cpu-row-reductions='min-work=8192' | FileCheck %s --check-prefix=POINTS
// RUN: remat-opt %s --remat-cpu-vectorize='min-work=8192 body-work=1' --remat-cpu-row-reductions='min-work=8192 body-work=1' | FileCheck %s --check-prefix=WORK
// remat-compile's --parallel-body-work reaches both through the pipeline.
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='upstream-vectorize=1 parallel-threshold=8192' | FileCheck %s --check-prefix=OMP-POINTS
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='upstream-vectorize=1 parallel-threshold=8192 parallel-body-work=1' | FileCheck %s --check-prefix=OMP-WORK

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// POINTS-LABEL: func.func @exp
// POINTS-NOT: scf.parallel
// POINTS: math.exp %{{.*}} : vector<8xf32>
// POINTS-NOT: scf.parallel
// POINTS: return
// WORK-LABEL: func.func @exp
// WORK: scf.if
// WORK: scf.parallel
// WORK: math.exp %{{.*}} : vector<8xf32>
// WORK: } else {
// WORK: return
// OMP-POINTS-LABEL: llvm.func @exp
// OMP-POINTS-NOT: omp.parallel
// OMP-POINTS: llvm.return
// OMP-WORK-LABEL: llvm.func @exp
// OMP-WORK: omp.parallel
// OMP-WORK: llvm.return
func.func @exp(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// POINTS-LABEL: func.func @rowsum
// POINTS-NOT: scf.parallel
// POINTS: return
// WORK-LABEL: func.func @rowsum
// WORK: scf.if
// WORK: scf.parallel
// WORK: } else {
// WORK: return
// OMP-POINTS-LABEL: llvm.func @rowsum
// OMP-POINTS-NOT: omp.parallel
// OMP-POINTS: llvm.return
// OMP-WORK-LABEL: llvm.func @rowsum
// OMP-WORK: omp.parallel
// OMP-WORK: llvm.return
func.func @rowsum(%a: memref<64x64xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #rows],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %e = math.exp %x : f32
    %t = arith.addf %acc, %e : f32
    linalg.yield %t : f32
  }
  return
}
