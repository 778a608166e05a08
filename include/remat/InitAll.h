//===- InitAll.h - register remat and upstream dialects/passes --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Registration entry points for tools built on remat: `remat-opt` registers
/// everything (upstream and remat); `RematPlugin` registers only what remat
/// adds, on top of a host tool that already has upstream's dialects and
/// passes.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_INITALL_H
#define REMAT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {

/// Registers the remat dialect and the external models remat attaches to
/// upstream ops (the cost interface of arith, math, linalg and tensor ops).
void registerRematDialects(mlir::DialectRegistry &registry);

/// Registers remat's own passes (dialect transforms, conversion, buffer
/// passes) and nothing of upstream's.
void registerRematOnlyPasses();

/// Registers every upstream dialect and extension, then remat's dialects.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every upstream pass, then remat's passes.
void registerAllPasses();

} // namespace remat

#endif // REMAT_INITALL_H
