// Numerics of the lowering of remat.conv2d, conv2d_input_grad and
// conv2d_filter_grad: 11 configurations (stride 2, padding 1 and 2, dilation
// 2, groups 2, depthwise (stride 2; rectangular with padding and dilation),
// rectangular kernels and strides, sizes that strided windows do not cover
// exactly, 1x1 and 2x2 kernels with padding beyond the kernel reach, 1x1
// stride-1 kernels with and without groups);
// compared with PyTorch 1.13 (forward ops with torch.nn.functional,
// gradients with torch.autograd.grad of the forward op) to 1e-4 absolute
// plus 1e-4 relative. conv_pool_norm_gen.py writes the cases (inputs as
// dense constants) and the reference; conv_pool_norm_check.py compares.
//
// Upstream CPU pipeline (one-shot-bufferize, buffer-deallocation-pipeline,
// loops, LLVM):
// RUN: %python %S/conv_pool_norm_gen.py conv %t.json > %t.mlir
// RUN: remat-opt %t.mlir --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: %python %S/conv_pool_norm_check.py %t.json %t.out | FileCheck %s
//
// The same through the arena planner (bufferize, --remat-plan-arena, LLVM):
// RUN: remat-opt %t.mlir --remat-lower-to-linalg --remat-open-recompute \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-plan-arena --convert-bufferization-to-memref --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts 2>/dev/null | %remat_runner > %t.arena.out
// RUN: %python %S/conv_pool_norm_check.py %t.json %t.arena.out | FileCheck %s
//
// The same with the convolutions through the CPU runtime
// (--remat-linalg-to-blas: im2col + cblas_sgemm, libRematCpuRuntimeShared):
// every f32 forward calls remat_cpu_sconv2d, every input gradient
// remat_cpu_sconv2d_input_grad (GEMM + col2im), every filter gradient (on a
// just zero-filled output, whose fill goes) remat_cpu_sconv2d_filter_grad_set,
// and the results match as above.
// RUN: remat-opt %t.mlir --remat-lower-to-linalg --remat-open-recompute \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-plan-arena --remat-linalg-to-blas 2>/dev/null > %t.blas.mlir
// RUN: FileCheck %s --check-prefix=CALLS < %t.blas.mlir
// RUN: grep -c 'call @remat_cpu_sconv2d(' %t.blas.mlir | FileCheck %s --check-prefix=FORWARD
// RUN: grep -c 'call @remat_cpu_sconv2d_input_grad(' %t.blas.mlir | FileCheck %s --check-prefix=INPUT
// RUN: grep -c 'call @remat_cpu_sconv2d_filter_grad_set(' %t.blas.mlir | FileCheck %s --check-prefix=FILTER
// RUN: remat-opt %t.blas.mlir --convert-bufferization-to-memref --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts | %remat_blas_runner > %t.blas.out
// RUN: %python %S/conv_pool_norm_check.py %t.json %t.blas.out | FileCheck %s
//
// The same through --remat-conv-to-gemm (the CUDA path without cuDNN: im2col
// copies, batched matmuls on views of the column buffer, col2im gathers),
// executed here on the CPU with the matmuls as loops: first with the default
// chunking (two images per chunk where the convolution has one group and two
// images: the image-batched GEMMs, the stride-0 filter view, the gathered
// output gradient), then with one image per chunk (max-column-bytes=1: the
// group-batched GEMMs only, filter gradients summed chunk after chunk). The
// 1x1 stride-1 configurations multiply the input (forward) or into the
// input gradient directly, without a column buffer.
// --remat-linalg-to-blas then turns every matmul of the rewrite into a GEMM
// call (GEMM; remat_cuda_sgemm on the CUDA path).
// RUN: remat-opt %t.mlir --remat-lower-to-linalg --remat-open-recompute \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-conv-to-gemm --remat-plan-arena 2>/dev/null > %t.gemm.mlir
// RUN: FileCheck %s --check-prefix=GEMM2 < %t.gemm.mlir
// RUN: remat-opt %t.gemm.mlir --remat-linalg-to-blas | FileCheck %s --check-prefix=GEMM
// RUN: remat-opt %t.gemm.mlir --convert-bufferization-to-memref --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts | %remat_runner > %t.gemm.out
// RUN: %python %S/conv_pool_norm_check.py %t.json %t.gemm.out | FileCheck %s
// RUN: remat-opt %t.mlir --remat-lower-to-linalg --remat-open-recompute \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-conv-to-gemm=max-column-bytes=1 --remat-plan-arena 2>/dev/null > %t.gemm1.mlir
// RUN: FileCheck %s --check-prefix=GEMM1 < %t.gemm1.mlir
// RUN: remat-opt %t.gemm1.mlir --convert-bufferization-to-memref --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts | %remat_runner > %t.gemm1.out
// RUN: %python %S/conv_pool_norm_check.py %t.json %t.gemm1.out | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: 33 of 33 results match

// CALLS-NOT: linalg.conv_2d
// CALLS: func.func private @remat_cpu_sconv2d(index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
// CALLS: func.func private @remat_cpu_sconv2d_input_grad(
// CALLS: func.func private @remat_cpu_sconv2d_filter_grad_set(
// FORWARD: {{^}}11{{$}}
// INPUT: {{^}}11{{$}}
// FILTER: {{^}}11{{$}}

// No convolution is left; the matmuls become GEMM calls.
// GEMM-NOT: linalg.conv_2d
// GEMM-NOT: linalg.batch_matmul
// GEMM-NOT: linalg.matmul
// GEMM-NOT: remat_cpu_sconv2d
// GEMM: func.func private @remat_cpu_sgemm(
// Two images of one group: the filter as a stride-0 batch, the output
// gradient gathered for the filter gradient.
// GEMM2-NOT: linalg.conv_2d
// GEMM2: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [2, 4, 27], strides: [0, 27, 1]
// GEMM2: memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : memref<4x2x16xf32{{.*}}> into memref<4x32xf32
// GEMM1-NOT: linalg.conv_2d
// GEMM1-NOT: memref.reinterpret_cast
// GEMM1: linalg.batch_matmul
