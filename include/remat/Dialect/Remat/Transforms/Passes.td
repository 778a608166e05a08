//===- Passes.td - remat passes ----------------------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_TD
#define REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematAutodiff : Pass<"remat-autodiff", "mlir::ModuleOp"> {
  let summary = "Builds the training step of a forward function (reverse mode)";
  let description = [{
    For every `func.func` that returns a single scalar loss (a rank-0 float
    tensor) and has arguments marked `remat.param`, appends the backward ops
    that compute the gradient of the loss with respect to every marked
    argument, and returns the loss followed by the gradients in argument
    order. Gradients are accumulated with `remat.add` where a value fans out.
    The op computing the returned loss is marked `#remat.phase<loss>` and
    every created op `#remat.phase<backward>`; the function gets the unit
    attribute `remat.training_step`. Functions without `remat.param`
    arguments are left alone.

    Before:
    ```mlir
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param},
                 %t: tensor<4x8xf32>) -> tensor<f32> {
      %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %1 = remat.mse %0, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
      return %1 : tensor<f32>
    }
    ```
    After:
    ```mlir
    func.func @f(...) -> (tensor<f32>, tensor<8x8xf32>) attributes {remat.training_step} {
      %0 = remat.matmul %x, %w : ...
      %1 = remat.mse %0, %t {remat.phase = #remat.phase<loss>} : ...
      %cst = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<f32>
      %2 = remat.mse_grad %0, %t, %cst {remat.phase = #remat.phase<backward>} : ...
      %3 = remat.matmul %x, %2 {transpose_a, remat.phase = #remat.phase<backward>} : ...
      return %1, %3 : tensor<f32>, tensor<8x8xf32>
    }
    ```
    Ops without `RematGradientOpInterface` on the path from a parameter to
    the loss are reported with an error at their location.
  }];
  let dependentDialects = ["::remat::RematDialect", "::mlir::arith::ArithDialect"];
}

def RematMemoryReport : Pass<"remat-memory-report", "mlir::ModuleOp"> {
  let summary = "Reports liveness, live bytes per op and the memory peak";
  let description = [{
    Runs the liveness analysis over the op order of every function: a value
    is live from its definition to its last use (a `remat.keep` hint is not
    a use; returned values live to the end; the values an op reads and the
    values it produces are live together while it runs). Function arguments
    (inputs and parameters) are counted apart from activations. Values used
    inside a region op (`remat.recompute`) are attributed to the region op.

    Emits a remark on the function with the peak activation bytes, the total
    with arguments, and the op at which the peak is reached; a remark at that
    op; with `per-op`, a remark at every op with its live bytes. With
    `json-file`, writes the same report as JSON. Sizes are 64-bit; a value
    whose size overflows 64 bits or is not statically shaped is an error.

    Before/after: the IR is unchanged; the report is the output, e.g.
    `remark: peak activation bytes 1536 (total with arguments 2048) at remat.matmul`.
  }];
  let options = [
    Option<"perOp", "per-op", "bool", /*default=*/"false",
           "Emit a remark with the live bytes at every op">,
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "Write the report as JSON to this file ('-' for stdout)">,
  ];
}

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_TD
