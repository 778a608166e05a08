//===- Passes.td - remat conversion passes -----------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CONVERSION_PASSES_TD
#define REMAT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematLowerToLinalg : Pass<"remat-lower-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lowers remat compute ops to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Rewrites every remat compute op, including the ops inside
    `remat.recompute` regions, into ops of the linalg, tensor, arith, math
    and scf dialects on tensors. `remat.recompute` and `remat.yield` stay:
    the region remains closed so that no later pass merges a recomputation
    with the original computation. `remat.keep` hints are erased and
    `remat.phase` attributes are dropped (also from the `arith.constant` ops
    that the autodiff pass creates).

    Floating-point work is done in f32: for f16 and bf16 tensors every
    operand element is extended to f32 (`arith.extf`), reductions and matmul
    accumulate in f32 tensors, and results are truncated back
    (`arith.truncf`). Softmax, log-softmax and the losses subtract the row
    maximum before exponentiating; gelu uses the tanh approximation, gelu_erf
    `math.erf` (libm `erff` on the host, libdevice in CUDA kernels); the
    dropout mask is the 64-bit hash of the seed and the row-major element
    index (see docs/Conventions.md), so every recomputation reproduces it.

    Transposed matmul operands are indexing maps of linalg.matmul /
    linalg.batch_matmul (no transposed copies); a 2-D rhs shared by a batched
    lhs folds the batch into the rows of lhs. `embedding_grad` is a
    scatter-add loop (scf.for) over the index positions.

    `remat.opaque` has no semantics: the pass fails with an error at the op.

    The pass runs on one `func.func` at a time: every pattern rewrites ops
    inside the function and none creates or reads a module-level symbol.

    Before:
    ```mlir
    %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    %1 = remat.relu %0 : (tensor<4x6xf32>) -> tensor<4x6xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4x6xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
    %0 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
    %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
           ins(%0 : tensor<4x6xf32>) outs(%e1 : tensor<4x6xf32>) {
         ^bb0(%in: f32, %out: f32):
           %m = arith.maximumf %in, %cst : f32
           linalg.yield %m : f32
         } -> tensor<4x6xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def RematOpenRecompute : Pass<"remat-open-recompute", "mlir::func::FuncOp"> {
  let summary = "Inlines the bodies of remat.recompute ops in place";
  let description = [{
    Replaces every `remat.recompute` by the ops of its body, in place: the
    block arguments are replaced by the op's inputs and the op's results by
    the values of `remat.yield`. Nested recompute ops are opened as well. The
    schedule is fixed at this point: run it after `--remat-lower-to-linalg`
    and do not run CSE or canonicalization between this pass and
    bufferization, which could merge a recomputation back into the original
    computation. The pass runs on one `func.func` at a time.

    Before:
    ```mlir
    %r = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %0 = linalg.generic ... ins(%a : tensor<4xf32>) ...
      remat.yield %0 : tensor<4xf32>
    }
    %s = linalg.generic ... ins(%r : tensor<4xf32>) ...
    ```
    After:
    ```mlir
    %0 = linalg.generic ... ins(%x : tensor<4xf32>) ...
    %s = linalg.generic ... ins(%0 : tensor<4xf32>) ...
    ```
  }];
  let statistics = [
    Statistic<"numOpened", "regions-opened",
              "remat.recompute ops replaced by their bodies">,
  ];
}

def RematFuseElementwise
    : Pass<"remat-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuses chains of elementwise linalg.generic ops on tensors";
  let description = [{
    Fuses an elementwise `linalg.generic` (every loop parallel, one result)
    into the elementwise `linalg.generic` that is the only user of its
    result, when the consumer reads it through a permutation (same
    iteration space: no broadcast, so nothing is computed twice), with
    upstream linalg's elementwise fusion (`linalg::fuseElementwiseOps`),
    repeatedly, so that a chain such as batch-norm apply + ReLU, a residual
    add + ReLU or the steps of a GELU becomes one loop nest with no
    intermediate tensor. The scalar ops of the bodies are unchanged (same
    types, same order), so the results are bitwise the same. Nothing else is
    touched: no folding, no CSE, no canonicalization (the schedule is fixed;
    see `--remat-open-recompute`), reductions and ops that
    `--remat-linalg-to-blas` matches are neither producers nor consumers.
    Fusion never lengthens a lifetime the schedule planned: it moves the
    producer's reads to the consumer, so unless the two are adjacent (only
    constants and empty tensors between them) every tensor the producer
    reads must be a block argument, a constant or read again at or after
    the consumer. The planned peak therefore still bounds the arena.
    Runs after `--remat-open-recompute`, on tensors.

    Before:
    ```mlir
    %y = linalg.generic {... iterator_types = ["parallel"]}
        ins(%x, %b : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
      ... arith.addf ...
    } -> tensor<8xf32>
    %z = linalg.generic {... iterator_types = ["parallel"]}
        ins(%y : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
      ... arith.maximumf ...
    } -> tensor<8xf32>
    ```
    After:
    ```mlir
    %z = linalg.generic {... iterator_types = ["parallel"]}
        ins(%x, %b : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
      ... arith.addf ... arith.maximumf ...
    } -> tensor<8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numFused", "ops-fused",
              "elementwise producers fused into their consumer">,
  ];
}

#endif // REMAT_CONVERSION_PASSES_TD
