// REQUIRES: ptxas
// Split and segmented reductions in the CUDA path (docs/Conventions.md
// "Reductions in GPU kernels"): the batch-norm statistics of
// Inputs/split-reductions.mlir (2 channels x 192 x 9 x 9 positions) split
// in 3 slices of 64 images (remat-gpu-split-reductions, before the arena is
// planned: the partial results are two [2, 3] f64 views of the arena,
// filled with -0.0), a kernel of 6 blocks of 256 threads (one per channel
// and slice), then the 3 partial results folded per channel in slice
// order; the softmax rows of 10 classes one 16-lane segment each, 16 rows
// per block of 256 threads (12 blocks), shuffled by 8, 4, 2, 1. The PTX goes
// through ptxas. Compiled and checked only: never run on a GPU.
// RUN: rm -rf %t && mkdir -p %t
// RUN: remat-compile %S/Inputs/split-reductions.mlir --target=cuda --emit=mlir-buffers 2>/dev/null > %t/b.mlir
// RUN: FileCheck %s --check-prefix=BUF < %t/b.mlir
// RUN: remat-opt %t/b.mlir --remat-gpu-block-reductions | FileCheck %s --check-prefix=GRID
// RUN: remat-opt %t/b.mlir --remat-gpu-block-reductions=remarks=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: remat-compile %S/Inputs/split-reductions.mlir --target=cuda --emit=ptx 2>/dev/null > %t/k.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t/k.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90 %t/k.ptx -o %t/k.cubin
// RUN: od -A n -c -N 4 %t/k.cubin | FileCheck %s --check-prefix=ELF

// BUF-LABEL: func.func @bn_classifier_arena(
// BUF-SAME: %[[ARENA:[a-z0-9]+]]: memref<{{[0-9]+}}xi8>
// BUF: %[[X:.*]] = memref.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [3, 64, 2, 81] : memref<192x2x81xf32> into memref<3x64x2x81xf32>
// BUF: %[[PS:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<{{[0-9]+}}xi8> to memref<2x3xf64>
// BUF: linalg.fill ins(%{{.*}} : f64) outs(%[[PS]] : memref<2x3xf64>)
// BUF: %[[PQ:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<{{[0-9]+}}xi8> to memref<2x3xf64>
// BUF: linalg.fill ins(%{{.*}} : f64) outs(%[[PQ]] : memref<2x3xf64>)
// BUF: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : memref<3x64x2x81xf32>) outs(%[[PS]], %[[PQ]] : memref<2x3xf64>, memref<2x3xf64>)
// BUF: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[PS]], %[[PQ]] : memref<2x3xf64>, memref<2x3xf64>) outs(%{{.*}}, %{{.*}} : memref<2xf64>, memref<2xf64>)

// GRID-LABEL: func.func @bn_classifier_arena(
// GRID: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c6{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) threads({{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, {{.*}} workgroup(%{{.*}} : memref<256xf64, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf64, #gpu.address_space<workgroup>>)
// GRID: gpu.terminator
// GRID-NEXT: }
// GRID-NEXT: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : memref<2x3xf64>, memref<2x3xf64>)
// GRID: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c12{{(_[0-9]+)?}}, {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) {
// GRID: gpu.shuffle down %{{.*}}, %c8_i32

// REMARK: remark: reduction of 6 outputs x 5184 elements: one block of 256 threads per output
// REMARK: remark: reduction of 2 outputs x 3 elements: sequential (too short)
// REMARK: remark: reduction of 192 outputs x 10 elements: one segment of 16 lanes per output, 8 warps per block

// The statistics' kernel (two f64 buffers of 256, 8 tree steps), then the
// segments: 4 shuffles each, offsets 8 down to 1 (none of 16).
// PTX: .target sm_90
// PTX: .maxntid 256, 1, 1
// PTX: .shared .align 8 .b8 __wg_[[K:.*]]_0[2048];
// PTX: .shared .align 8 .b8 __wg_[[K]]_1[2048];
// PTX-NOT: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
// PTX: .maxntid 256, 1, 1
// PTX-NOT: .shared
// PTX: shfl.sync.down.b32 {{.*}}, 8, 31, -1;
// PTX: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
// PTX: shfl.sync.down.b32 {{.*}}, 2, 31, -1;
// PTX: shfl.sync.down.b32 {{.*}}, 1, 31, -1;

// ELF: 177 E L F
