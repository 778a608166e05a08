//===- TestContext.h - shared setup of the dialect gtests -------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_DIALECT_TESTCONTEXT_H
#define REMAT_UNITTESTS_DIALECT_TESTCONTEXT_H

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

namespace remat::test {

/// Returns a registry with the dialects the tests parse; with
/// `costModels`, also the cost external models on upstream ops.
inline mlir::DialectRegistry makeRegistry(bool costModels = true) {
  mlir::DialectRegistry registry;
  registry.insert<RematDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect,
                  mlir::cf::ControlFlowDialect, mlir::scf::SCFDialect>();
  if (costModels)
    registerCostExternalModels(registry);
  return registry;
}

/// Parses `source` into a module (null and a test failure on error).
inline mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &ctx,
                                               llvm::StringRef source) {
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  EXPECT_TRUE(module) << "cannot parse:\n" << source.str();
  return module;
}

/// Returns the first op named `name` in `module` (null if none).
inline mlir::Operation *findOp(mlir::ModuleOp module, llvm::StringRef name,
                               unsigned skip = 0) {
  mlir::Operation *found = nullptr;
  module->walk([&](mlir::Operation *op) {
    if (found || op->getName().getStringRef() != name)
      return;
    if (skip == 0)
      found = op;
    else
      --skip;
  });
  return found;
}

} // namespace remat::test

#endif // REMAT_UNITTESTS_DIALECT_TESTCONTEXT_H
