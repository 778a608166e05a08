//===- RematInterfaces.td - remat op interfaces ------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATINTERFACES_TD
#define REMAT_DIALECT_REMAT_IR_REMATINTERFACES_TD

include "mlir/IR/OpBase.td"

def RematCostOpInterface : OpInterface<"RematCostOpInterface"> {
  let cppNamespace = "::remat";
  let description = [{
    What an op costs to recompute and what its results cost to keep.
    `getComputeCost` is in floating-point operations (an estimate of the
    arithmetic the op performs); `getResultBytes` is the number of bytes its
    results occupy. The default implementations derive both from the result
    types: one operation per result element, and the element count times the
    element byte width. Ops with more work per element override the compute
    cost. `getWorkspaceBytes` is the scratch storage the op's lowering
    allocates while the op runs and frees before the next op (padded copies,
    f32 accumulators, index buffers): live only during the op, on top of its
    operands and results. The default is none. Upstream `arith`, `math`, `linalg` and `tensor` ops get the
    interface through external models (see `registerCostExternalModels`).
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the compute cost of the op in floating-point ops.",
      /*retTy=*/"double", /*methodName=*/"getComputeCost", /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::remat::getDefaultComputeCost($_op.getOperation());
      }]>,
    InterfaceMethod<
      /*desc=*/[{Returns the bytes of all results, or failure when a result
                 is not a statically shaped tensor or its size overflows
                 64 bits.}],
      /*retTy=*/"::mlir::FailureOr<int64_t>", /*methodName=*/"getResultBytes",
      /*args=*/(ins), /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::remat::getResultBytesOf($_op.getOperation());
      }]>,
    InterfaceMethod<
      /*desc=*/[{Returns the bytes of scratch storage live only while the op
                 runs (not its operands or results), or failure when they
                 overflow 64 bits.}],
      /*retTy=*/"::mlir::FailureOr<int64_t>",
      /*methodName=*/"getWorkspaceBytes", /*args=*/(ins), /*methodBody=*/"",
      /*defaultImplementation=*/[{ return int64_t(0); }]>,
  ];
}

def RematGradientOpInterface : OpInterface<"RematGradientOpInterface"> {
  let cppNamespace = "::remat";
  let description = [{
    Reverse-mode differentiation of one op. Given the gradients of the op's
    results (a null value where a result receives no gradient), the op builds
    the ops computing the gradients of its operands at the builder's insertion
    point and returns them, one entry per operand; an entry is null where the
    operand is not differentiable (integer labels, seeds, indices). The
    builder's insertion point is left after the created ops.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Builds the backward of this op.",
      /*retTy=*/"::llvm::LogicalResult", /*methodName=*/"buildGradient",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::mlir::ValueRange":$resultGrads,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

#endif // REMAT_DIALECT_REMAT_IR_REMATINTERFACES_TD
