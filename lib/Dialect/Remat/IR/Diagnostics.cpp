//===- Diagnostics.cpp - Compact diagnostics on large ops -----------------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/Diagnostics.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

/// True if the user asked for ops on diagnostics on the command line (the
/// context's flag alone is true by default in mlir-opt-like tools).
static bool printOpRequested(MLIRContext *context) {
  if (!context->shouldPrintOpOnDiagnostic())
    return false;
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("mlir-print-op-on-diagnostic");
  return it != options.end() && it->second->getNumOccurrences() > 0;
}

static InFlightDiagnostic attachContext(InFlightDiagnostic diag,
                                        Operation *op) {
  MLIRContext *context = op->getContext();
  if (printOpRequested(context)) {
    diag.attachNote(op->getLoc())
        .append("see current operation: ")
        .appendOp(*op, OpPrintingFlags().printGenericOpForm());
  } else if (context->shouldPrintOpOnDiagnostic()) {
    // Where MLIR would print the op, name it instead (no note when diagnostics
    // are being verified: the flag is off then).
    Diagnostic &note = diag.attachNote(op->getLoc());
    note << "in '" << op->getName() << "'";
    if (auto name =
            op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      note << " @" << name.getValue();
  }
  return diag;
}

InFlightDiagnostic remat::emitCompactError(Operation *op,
                                           const llvm::Twine &message) {
  return attachContext(mlir::emitError(op->getLoc(), message), op);
}

InFlightDiagnostic remat::emitCompactRemark(Operation *op,
                                            const llvm::Twine &message) {
  return attachContext(mlir::emitRemark(op->getLoc(), message), op);
}
