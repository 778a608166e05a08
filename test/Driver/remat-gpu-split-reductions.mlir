// RUN: remat-opt %s --remat-gpu-split-reductions --split-input-file | FileCheck %s
// RUN: remat-opt %s --remat-gpu-split-reductions --remat-gpu-block-reductions --split-input-file | FileCheck %s --check-prefix=GRID
// RUN: remat-opt %s --remat-gpu-split-reductions=min-slice=1000000 --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: remat-opt %s --remat-gpu-split-reductions=remarks=1 --split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: not remat-opt %s --remat-gpu-split-reductions=target-blocks=1 --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: target-blocks and min-slice must be at least 2, got 1 and 4096

// A loss over the whole batch: one output, 1024 x 1024 elements. At most
// 256 blocks and at least 4096 elements per slice: the rows split 256 ways
// (expand_shape to [256, 4, 1024]), each slice 4 rows. The partial results
// are a buffer of 256 floats (filled with -0.0), written by the slices' op
// (slice parallel, 4 x 1024 reduced) and folded in slice order into the
// output by a second op; then the buffer is freed (remat-plan-arena plans
// it into the arena). With --remat-gpu-block-reductions: a grid of 256
// blocks of 256 threads, then one block of 256 threads for the 256
// partial results.
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[TO0:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @loss
// CHECK-SAME: (%[[X:.*]]: memref<1024x1024xf32>, %[[OUT:.*]]: memref<f32>)
// CHECK: %[[X2:.*]] = memref.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [256, 4, 1024] : memref<1024x1024xf32> into memref<256x4x1024xf32>
// CHECK: %[[P:.*]] = memref.alloc() : memref<256xf32>
// CHECK: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[NEG0]] : f32) outs(%[[P]] : memref<256xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[TO0]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[X2]] : memref<256x4x1024xf32>) outs(%[[P]] : memref<256xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[SCALAR]]], iterator_types = ["reduction"]} ins(%[[P]] : memref<256xf32>) outs(%[[OUT]] : memref<f32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: memref.dealloc %[[P]] : memref<256xf32>
// CHECK-NEXT: return
// GRID-LABEL: func.func @loss
// GRID: %[[P:.*]] = memref.alloc() : memref<256xf32>
// GRID: linalg.fill
// GRID: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) threads({{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, {{.*}} workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// GRID: scf.for %{{.*}} = %{{.*}} to %c4096{{(_[0-9]+)?}} step %c256
// GRID: memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<256xf32>
// GRID: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) threads({{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, {{.*}} workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// GRID: memref.load %[[P]][%{{.*}}] : memref<256xf32>
// GRID: memref.dealloc %[[P]]
// REMARK: remark: reduction of 1 outputs x 1048576 elements: 256 slices of 4096 elements
// NONE-LABEL: func.func @loss
// NONE-NOT: memref.alloc
func.func @loss(%x: memref<1024x1024xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<1024x1024xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Batch-norm statistics of 8 channels over N*H*W = 32 x 28 x 28 (sum in
// f32 and sum of squares in f64, the channel loop first): 8 outputs, so at
// most 32 slices per channel of at least 4096 elements; the batch loop is
// taken whole while it fits: 25088 / 4096 -> 6 slices at most, and 32 has
// no divisor between 2 and 6 but 4 and 2: n splits 4 ways (slices of 8
// images). Partial buffers [8 channels, 4 slices], one per output type;
// the fold reduces over the slices with the channel parallel.
// CHECK-DAG: #[[XMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d0, d3, d4)>
// CHECK-DAG: #[[PMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
// CHECK-DAG: #[[FOLDIN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[FOLDOUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @bn_stats
// CHECK: memref.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [4, 8, 8, 28, 28] : memref<32x8x28x28xf32> into memref<4x8x8x28x28xf32>
// CHECK: %[[PS:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[PS]] : memref<8x4xf32>)
// CHECK: %[[PQ:.*]] = memref.alloc() : memref<8x4xf64>
// CHECK: linalg.fill ins(%{{.*}} : f64) outs(%[[PQ]] : memref<8x4xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], #[[PMAP]], #[[PMAP]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: outs(%[[PS]], %[[PQ]] : memref<8x4xf32>, memref<8x4xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[FOLDIN]], #[[FOLDIN]], #[[FOLDOUT]], #[[FOLDOUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[PS]], %[[PQ]] : memref<8x4xf32>, memref<8x4xf64>)
// CHECK: memref.dealloc %[[PS]]
// CHECK: memref.dealloc %[[PQ]]
// The slices' op: 32 blocks of 256 threads, two shared buffers; the fold:
// 8 outputs of 4 partial results, too short for a block: a loop nest.
// GRID-LABEL: func.func @bn_stats
// GRID: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32{{(_[0-9]+)?}}, {{.*}} workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf64, #gpu.address_space<workgroup>>)
// GRID-NOT: gpu.launch
// GRID: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// REMARK: remark: reduction of 8 outputs x 25088 elements: 4 slices of 6272 elements
func.func @bn_stats(%x: memref<32x8x28x28xf32>, %s: memref<8xf32>, %q: memref<8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(c, n, h, w) -> (n, c, h, w)>, affine_map<(c, n, h, w) -> (c)>, affine_map<(c, n, h, w) -> (c)>],
                  iterator_types = ["parallel", "reduction", "reduction", "reduction"]}
      ins(%x : memref<32x8x28x28xf32>) outs(%s, %q : memref<8xf32>, memref<8xf64>) {
  ^bb0(%a: f32, %acc: f32, %acc2: f64):
    %r = arith.addf %acc, %a : f32
    %e = arith.extf %a : f32 to f64
    %m = arith.mulf %e, %e : f64
    %r2 = arith.addf %acc2, %m : f64
    linalg.yield %r, %r2 : f32, f64
  }
  return
}

// -----

// Loops taken whole, then a split, with a gather through linalg.index:
// a loss over 16 x 8192 tokens (one output) reading the logit at each
// label. The 16 rows fit whole (16 slices of 8192), then the token loop
// splits 2 ways (min-slice 4096: 32 slices of 4096). linalg.index of the
// split loop becomes slice * 4096 + position; of the whole loop, the same
// loop.
// CHECK-DAG: #[[SPLIT:.*]] = affine_map<(d0, d1) -> (d0 * 4096 + d1)>
// CHECK-LABEL: func.func @gather
// CHECK: memref.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 2, 4096] : memref<16x8192xi64> into memref<16x2x4096xi64>
// CHECK: memref.alloc() : memref<16x2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[SLICE:.*]] = linalg.index 1 : index
// CHECK: %[[POS:.*]] = linalg.index 2 : index
// CHECK: %[[TOKEN:.*]] = affine.apply #[[SPLIT]](%[[SLICE]], %[[POS]])
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[TOKEN]], %{{.*}}] : memref<16x8192x4xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : memref<16x2xf32>)
// REMARK: remark: reduction of 1 outputs x 131072 elements: 32 slices of 4096 elements
func.func @gather(%logits: memref<16x8192x4xf32>, %labels: memref<16x8192xi64>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%labels : memref<16x8192xi64>) outs(%out : memref<f32>) {
  ^bb0(%l: i64, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.index_cast %l : i64 to index
    %v = memref.load %logits[%i, %j, %c] : memref<16x8192x4xf32>
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: many outputs (128 >= 256 / 2), a short reduction (under
// 2 x 4096), a reduction of an operand indexed by a window (a
// convolution's filter gradient, left to cuDNN or im2col + GEMM), a body this pass does not handle (the output read twice),
// and an op nested in a loop (remat-plan-arena places top-level buffers).
// CHECK-LABEL: func.func @kept
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.expand_shape
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: memref.alloc
// REMARK-NOT: remark
func.func @kept(%a: memref<128x8192xf32>, %ao: memref<128xf32>,
                %b: memref<8000xf32>, %bo: memref<f32>,
                %x: memref<16400xf32>, %w: memref<16384xf32>, %xo: memref<16xf32>,
                %c: memref<4x1000xf32>, %co: memref<4xf32>,
                %d: memref<64x1024xf32>, %do: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x8192xf32>) outs(%ao : memref<128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%b : memref<8000xf32>) outs(%bo : memref<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(f, o) -> (o + f)>, affine_map<(f, o) -> (o)>, affine_map<(f, o) -> (f)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<16400xf32>, memref<16384xf32>) outs(%xo : memref<16xf32>) {
  ^bb0(%v: f32, %u: f32, %acc: f32):
    %m = arith.mulf %v, %u : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<4x1000xf32>) outs(%co : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                    iterator_types = ["reduction", "reduction"]}
        ins(%d : memref<64x1024xf32>) outs(%do : memref<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %acc, %v : f32
      linalg.yield %s : f32
    }
  }
  return
}
