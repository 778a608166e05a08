//===- InitAll.h - register remat and the upstream pieces it uses -*- C++
//-*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INITALL_H
#define REMAT_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {

/// Registers the remat dialect, the upstream dialects remat pipelines use,
/// and the cost-model external models on upstream ops.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the remat passes and the upstream passes remat pipelines use.
void registerAllPasses();

} // namespace remat

#endif // REMAT_INITALL_H
