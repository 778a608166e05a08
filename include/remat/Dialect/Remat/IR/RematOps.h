//===- RematOps.h - remat operations ----------------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS_H
#define REMAT_DIALECT_REMAT_IR_REMATOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "remat/Dialect/Remat/IR/RematEnums.h.inc"

namespace remat {
/// Verifies that every ranked tensor operand and result of `op` has a byte
/// size (product of its non-zero dimensions times the element width) that
/// fits in int64_t; emits a located error otherwise.
mlir::LogicalResult verifySizedTensors(mlir::Operation *op);

namespace traits {
/// The `Remat_SizedTensors` trait of every remat op (RematDialect.td).
template <typename ConcreteType>
class SizedTensors
    : public mlir::OpTrait::TraitBase<ConcreteType, SizedTensors> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifySizedTensors(op);
  }
};
} // namespace traits
} // namespace remat

#define GET_ATTRDEF_CLASSES
#include "remat/Dialect/Remat/IR/RematAttributes.h.inc"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.h.inc"

namespace remat {

/// Returns the numpy-style broadcast of two shapes, or failure if they are
/// not compatible.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Returns the phase of `op` in a training step (forward when unmarked).
Phase getPhase(mlir::Operation *op);

/// Marks `op` with `phase` (removes the attribute for forward).
void setPhase(mlir::Operation *op, Phase phase);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_H
