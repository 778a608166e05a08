//===- Passes.h - remat passes ----------------------------------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_H
#define REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

namespace remat {

#define GEN_PASS_DECL
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Dialect/Remat/Transforms/Passes.h.inc"

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_PASSES_H
