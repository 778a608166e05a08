//===- RematAttributes.td - remat attributes ---------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATATTRIBUTES_TD
#define REMAT_DIALECT_REMAT_IR_REMATATTRIBUTES_TD

include "remat/Dialect/Remat/IR/RematDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Remat_PhaseForward : I32EnumAttrCase<"forward", 0>;
def Remat_PhaseLoss : I32EnumAttrCase<"loss", 1>;
def Remat_PhaseBackward : I32EnumAttrCase<"backward", 2>;

def Remat_Phase : I32EnumAttr<"Phase", "phase of an op in a training step",
    [Remat_PhaseForward, Remat_PhaseLoss, Remat_PhaseBackward]> {
  let cppNamespace = "::remat";
  let genSpecializedAttr = 0;
}

def Remat_PhaseAttr : EnumAttr<Remat_Dialect, Remat_Phase, "phase"> {
  let summary = "Phase of an op in a training step";
  let description = [{
    Attached as `remat.phase` to the ops of a training step. Ops without the
    attribute are forward ops. `loss` marks the op computing the scalar loss;
    `backward` marks every op that autodiff created for the gradients.
    Example: `{remat.phase = #remat.phase<backward>}`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // REMAT_DIALECT_REMAT_IR_REMATATTRIBUTES_TD
