// Numerics of the lowering with f16 and bf16 operands: conv2d and both
// gradients (groups 2, stride 2, padding 1, dilation (2, 1)), max/avg pooling
// and their gradients (kernel 3, stride 2, padding 1), global_avg_pool,
// layer_norm, batch_norm and their gradients. The lowering widens to f32,
// computes in f32 and rounds each result once, so the reference is PyTorch's
// f32 computation on the inputs rounded to the type, and the tolerance is
// 1e-4 absolute plus 1e-3 (f16) or 8e-3 (bf16) relative: about two half-ulps
// of the result type. Forward ops use torch.nn.functional, gradients
// torch.autograd.grad of the forward op (PyTorch 1.13).
// conv_pool_norm_gen.py writes the cases (inputs as dense constants) and the
// reference; conv_pool_norm_check.py compares.
//
// Upstream CPU pipeline (one-shot-bufferize, buffer-deallocation-pipeline,
// loops, LLVM):
// RUN: %python %S/conv_pool_norm_gen.py half %t.json > %t.mlir
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

// CHECK-NOT: FAIL
// CHECK: 34 of 34 results match
