// Numerics of the lowering of remat.conv2d, conv2d_input_grad and
// conv2d_filter_grad: 8 configurations (stride 2, padding 1 and 2, dilation
// 2, groups 2, depthwise, rectangular kernels and strides, sizes that strided
// windows do not cover exactly, 1x1 and 2x2 kernels with padding beyond the
// kernel reach);
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
// remat_cpu_sconv2d_input_grad (GEMM + col2im), every filter gradient
// remat_cpu_sconv2d_filter_grad, and the results match as above.
// RUN: remat-opt %t.mlir --remat-lower-to-linalg --remat-open-recompute \
// RUN:   --one-shot-bufferize='bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map' \
// RUN:   --remat-plan-arena --remat-linalg-to-blas 2>/dev/null > %t.blas.mlir
// RUN: FileCheck %s --check-prefix=CALLS < %t.blas.mlir
// RUN: grep -c 'call @remat_cpu_sconv2d(' %t.blas.mlir | FileCheck %s --check-prefix=FORWARD
// RUN: grep -c 'call @remat_cpu_sconv2d_input_grad(' %t.blas.mlir | FileCheck %s --check-prefix=INPUT
// RUN: grep -c 'call @remat_cpu_sconv2d_filter_grad(' %t.blas.mlir | FileCheck %s --check-prefix=FILTER
// RUN: remat-opt %t.blas.mlir --convert-bufferization-to-memref --convert-linalg-to-loops \
// RUN:   --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-scf-to-cf \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:   --reconcile-unrealized-casts | %remat_blas_runner > %t.blas.out
// RUN: %python %S/conv_pool_norm_check.py %t.json %t.blas.out | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: 24 of 24 results match

// CALLS-NOT: linalg.conv_2d
// CALLS: func.func private @remat_cpu_sconv2d(index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
// CALLS: func.func private @remat_cpu_sconv2d_input_grad(
// CALLS: func.func private @remat_cpu_sconv2d_filter_grad(
// FORWARD: {{^}}8{{$}}
// INPUT: {{^}}8{{$}}
// FILTER: {{^}}8{{$}}
