//===- RematDialect.td - remat dialect definition ----------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD

include "mlir/IR/OpBase.td"

def Remat_Dialect : Dialect {
  let name = "remat";
  let cppNamespace = "::remat";
  let summary = "Training graphs (forward, loss, backward) for rematerialization";
  let description = [{
    The `remat` dialect models one training step of a neural network on
    ranked, statically shaped tensors: the forward ops, the loss, and the
    backward ops that compute the gradients of the parameters. Every op knows
    what its result costs to keep (bytes, from its type) and to recompute
    (compute cost, from its shapes) through `RematCostOpInterface`, and every
    differentiable forward op knows how to build its backward through
    `RematGradientOpInterface`.

    Rematerialization is expressed with three constructs: `remat.keep` (a
    value must stay resident), the `remat.no_recompute` unit attribute (an op
    must never be recomputed) and `remat.recompute` (a region holding forward
    ops that are executed again in the backward). Backward ops carry the
    `remat.phase = #remat.phase<backward>` attribute so that schedulers can
    tell the two halves of a training step apart; function arguments that are
    trainable parameters carry the `remat.param` unit attribute.

    Non-trainable state that a step reads and updates (the running
    statistics of a batch norm) is a function argument marked with the
    `remat.state` unit attribute, and its next value a function result
    marked `remat.state = N : i64`, N being the index of the state argument
    it replaces (same type). `--remat-autodiff` differentiates only the
    loss and returns the state results after the gradients.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the unit attribute that marks a trainable function argument.
    static llvm::StringRef getParamAttrName() { return "remat.param"; }
    /// Name of the phase attribute attached to loss and backward ops.
    static llvm::StringRef getPhaseAttrName() { return "remat.phase"; }
    /// Name of the state attribute: a unit attribute on a function argument
    /// holding state, an i64 (the index of that argument) on the function
    /// result holding its next value.
    static llvm::StringRef getStateAttrName() { return "remat.state"; }
    /// Name of the unit attribute that forbids recomputing an op.
    static llvm::StringRef getNoRecomputeAttrName() {
      return "remat.no_recompute";
    }
    /// Name of the unit attribute marking a function built by autodiff.
    static llvm::StringRef getTrainingStepAttrName() {
      return "remat.training_step";
    }
    /// Name of the unit attribute marking a function without a backward
    /// phase whose every value may be recomputed (the Moccasin benchmark
    /// DAGs, set by remat-import): rematerialization plans the whole DAG.
    static llvm::StringRef getForwardOnlyAttrName() {
      return "remat.forward_only";
    }
    /// Name of the unit attribute marking the op that seeds the gradient
    /// (the loss gradient) of a training step written with its backward:
    /// the backward ops are the seed and every op depending on it.
    static llvm::StringRef getGradSeedAttrName() { return "remat.grad_seed"; }
    /// Name of the dictionary attribute on a function that
    /// `--remat-rematerialize=annotate=true` writes: the chosen plan.
    static llvm::StringRef getPlanAttrName() { return "remat.plan"; }
    void registerAttributes();
  }];
}

/// Every tensor an op reads or writes has a size that 64-bit signed
/// arithmetic can hold: the product of its non-zero dimensions times the
/// element width in bytes is below 2^63 (so every element count, byte size,
/// offset and sub-product of its dimensions is too).
def Remat_SizedTensors : NativeOpTrait<"SizedTensors"> {
  let cppNamespace = "::remat::traits";
}

class Remat_Op<string mnemonic, list<Trait> traits = []>
    : Op<Remat_Dialect, mnemonic, !listconcat(traits, [Remat_SizedTensors])>;

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD
