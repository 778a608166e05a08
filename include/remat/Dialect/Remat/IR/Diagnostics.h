//===- Diagnostics.h - Compact diagnostics on large ops ---------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `Operation::emitError` and `emitRemark` attach the whole op, printed in
/// generic form, when the context prints ops on diagnostics (mlir-opt's
/// default): on a function that is its entire body (106 KB for one error on
/// the 100-layer MLP). The passes report on functions through these helpers
/// instead: the diagnostic is at the function's location, with a note naming
/// it; the body is printed only when `--mlir-print-op-on-diagnostic` was
/// given explicitly on the command line.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_DIAGNOSTICS_H
#define REMAT_DIALECT_REMAT_IR_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace remat {

/// An error at `op`'s location that names `op` (its symbol name, if any) but
/// does not print it unless explicitly requested.
mlir::InFlightDiagnostic emitCompactError(mlir::Operation *op,
                                          const llvm::Twine &message = {});
/// A remark likewise.
mlir::InFlightDiagnostic emitCompactRemark(mlir::Operation *op,
                                           const llvm::Twine &message = {});

} // namespace remat

#endif // REMAT_DIALECT_REMAT_IR_DIAGNOSTICS_H
