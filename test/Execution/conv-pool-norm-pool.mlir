// Numerics of the lowering of remat.max_pool2d, avg_pool2d, global_avg_pool
// and their gradients: overlapping windows (kernel 3, stride 2), padding 1,
// rectangular windows, non-divisible sizes, integer-valued inputs with ties
// in every window (the first maximum in kh-major order gets the gradient),
// and -inf / NaN inputs for max pooling;
// compared with PyTorch 1.13 (forward ops with torch.nn.functional,
// gradients with torch.autograd.grad of the forward op) to 1e-4 absolute
// plus 1e-4 relative. conv_pool_norm_gen.py writes the cases (inputs as
// dense constants) and the reference; conv_pool_norm_check.py compares.
//
// Upstream CPU pipeline (one-shot-bufferize, buffer-deallocation-pipeline,
// loops, LLVM):
// RUN: %python %S/conv_pool_norm_gen.py pool %t.json > %t.mlir
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
