//===- Passes.h - remat-compile's memref-level passes -----------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The small memref-level rewrites remat-compile runs between upstream passes
// (lib/Driver/GpuPrepare.cpp), registered in remat-opt for testing.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_PASSES_H
#define REMAT_DRIVER_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace remat {

#define GEN_PASS_DECL
#include "remat/Driver/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Driver/Passes.h.inc"

} // namespace remat

#endif // REMAT_DRIVER_PASSES_H
