// RUN: remat-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(remat-cpu-parallel-loops{min-work=1000})'

#id = affine_map<(i, j) -> (i, j)>

// The pass calls omp_get_max_threads() -> i32: a function of that name with
// another type is a located error, not a wrong call.
// expected-error @+1 {{remat-cpu-parallel-loops: 'omp_get_max_threads' must be a function () -> i32}}
func.func private @omp_get_max_threads() -> i64
func.func @clash(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
