//===- RematInterfaces.h - remat op interfaces ------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATINTERFACES_H
#define REMAT_DIALECT_REMAT_IR_REMATINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {

/// Returns the bytes of one element of `type`: the bit width of an integer or
/// float type rounded up to whole bytes (i1 takes one byte), 8 for index;
/// std::nullopt for any other type. The one definition of element sizes that
/// the cost model, the memory analysis and the compile driver share (the
/// schedule verifier keeps an independent one on purpose).
std::optional<int64_t> getElementBytes(mlir::Type type);

/// Returns the bytes a value of `type` occupies: a statically shaped ranked
/// tensor or memref of elements `getElementBytes` sizes, or such an element
/// alone (a scalar). std::nullopt for other types and when the size overflows
/// int64_t.
std::optional<int64_t> getValueBytes(mlir::Type type);

/// Returns the number of bytes of a statically shaped tensor (sub-byte element
/// types round up to whole bytes), or std::nullopt if `type` is not a
/// statically shaped tensor or the size overflows int64_t.
std::optional<int64_t> getTensorBytes(mlir::Type type);

/// Returns the number of elements of a statically shaped tensor, or
/// std::nullopt if it is not one or the count overflows int64_t.
std::optional<int64_t> getTensorElements(mlir::Type type);

/// Default compute cost: one floating-point op per result element.
double getDefaultComputeCost(mlir::Operation *op);

/// Sum of the bytes of all results of `op`; failure if a result is not a
/// statically shaped tensor or the size overflows.
mlir::FailureOr<int64_t> getResultBytesOf(mlir::Operation *op);

/// Attaches `RematCostOpInterface` to the upstream `arith`, `math`, `linalg`
/// and `tensor` ops that operate on tensors.
void registerCostExternalModels(mlir::DialectRegistry &registry);

/// Attaches `RematGradientOpInterface` to upstream ops with well-known
/// derivatives: elementwise `arith`/`math` ops on tensors, `linalg.matmul`,
/// `linalg.fill` of a constant, elementwise and sum-reduction
/// `linalg.generic`s (GradientExternalModels.cpp).
void registerGradientExternalModels(mlir::DialectRegistry &registry);

} // namespace remat

#include "remat/Dialect/Remat/IR/RematInterfaces.h.inc"

#endif // REMAT_DIALECT_REMAT_IR_REMATINTERFACES_H
