// REQUIRES: ptxas
// Warp-per-output reductions in the CUDA path (--remat-gpu-block-reductions,
// docs/Conventions.md "Reductions in GPU kernels"): the layer norm's row
// statistics over 512 rows of 96 features are one warp per row, 8 rows per
// block of 256 threads, combined by shuffles (no shared memory, no
// barrier); the few-output reductions (the gradients over 512 rows, the
// loss's slices) stay one block per output with a shared-memory tree. The PTX goes
// through ptxas. Compiled and checked only: never run on a GPU.
// RUN: rm -rf %t && mkdir -p %t
// RUN: remat-compile %S/Inputs/layer-norm-rows.mlir --target=cuda --emit=ptx 2>/dev/null > %t/k.ptx
// RUN: FileCheck %s < %t/k.ptx
// The shuffle offsets, the clamp and the mask are immediates and no kernel
// divides integers (gpu-launch-sink-index-computations moves the constants
// into the kernels; the lane and warp of a thread are a mask and a shift).
// RUN: FileCheck %s --check-prefix=IMM < %t/k.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90 %t/k.ptx -o %t/k.cubin
// RUN: od -A n -c -N 4 %t/k.cubin | FileCheck %s --check-prefix=ELF
// The strategy per reduction, as the pass's remarks give it.
// RUN: remat-compile %S/Inputs/layer-norm-rows.mlir --target=cuda --emit=mlir-buffers 2>/dev/null | remat-opt --remat-gpu-block-reductions=remarks=1 --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// In kernel order: the forward statistics (sum and sum of squares in f64,
// each shuffled as two 32-bit halves: 4 shuffles per tree step, 5 steps),
// the loss (remat-gpu-split-reductions: 8 slices of 64 rows, one block
// each, 256 floats of shared memory, 8 tree steps + the fold's barrier;
// then the 8 partial results in one block of 32 threads: 5 tree steps),
// the statistics recomputed in the backward pass, the
// backward row sums (two f32 per row: 10 shuffles), the gamma gradient
// (f64, one block per feature) and the bias gradient (f32).
// CHECK: .maxntid 256, 1, 1
// CHECK-NOT: .shared
// CHECK-NOT: bar.sync
// CHECK-COUNT-20: shfl.sync.down.b32
// CHECK-NOT: shfl.sync
// CHECK: .maxntid 256, 1, 1
// CHECK: .shared .align 4 .b8 {{.*}}[1024];
// CHECK-COUNT-9: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: .maxntid 32, 1, 1
// CHECK: .shared .align 4 .b8 {{.*}}[128];
// CHECK-COUNT-6: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: .maxntid 256, 1, 1
// CHECK-COUNT-20: shfl.sync.down.b32
// CHECK-NOT: shfl.sync
// CHECK: .maxntid 256, 1, 1
// CHECK-NOT: .shared
// CHECK-COUNT-10: shfl.sync.down.b32
// CHECK-NOT: shfl.sync
// CHECK: .maxntid 256, 1, 1
// CHECK: .shared .align 8 .b8 {{.*}}[2048];
// CHECK: .shared .align 8 .b8 {{.*}}[2048];
// CHECK: .maxntid 256, 1, 1
// CHECK: .shared .align 4 .b8 {{.*}}[1024];
// CHECK-NOT: shfl.sync
// CHECK-NOT: .maxntid

// ELF: 177 E L F

// IMM-NOT: {{(div|rem)}}.{{[us]}}{{32|64}}
// IMM: shfl.sync.down.b32 {{.*}}, 16, 31, -1;
// IMM: shfl.sync.down.b32 {{.*}}, 8, 31, -1;
// IMM: shfl.sync.down.b32 {{.*}}, 4, 31, -1;
// IMM: shfl.sync.down.b32 {{.*}}, 2, 31, -1;
// IMM: shfl.sync.down.b32 {{.*}}, 1, 31, -1;
// IMM-NOT: {{(div|rem)}}.{{[us]}}{{32|64}}

// REMARK: remark: reduction of 512 outputs x 96 elements: one warp per output, 8 warps per block
// REMARK: remark: reduction of 8 outputs x 6144 elements: one block of 256 threads per output
// REMARK: remark: reduction of 1 outputs x 8 elements: one block of 32 threads per output
// REMARK: remark: reduction of 512 outputs x 96 elements: one warp per output, 8 warps per block
// REMARK: remark: reduction of 512 outputs x 96 elements: one warp per output, 8 warps per block
// REMARK: remark: reduction of 96 outputs x 512 elements: one block of 256 threads per output
// REMARK: remark: reduction of 96 outputs x 512 elements: one block of 256 threads per output
// REMARK-NOT: remark: reduction
