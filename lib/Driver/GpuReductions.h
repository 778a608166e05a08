//===- GpuReductions.h - the reductions the GPU passes rewrite --*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The matcher shared by --remat-gpu-split-reductions,
// --remat-gpu-block-reductions (GpuBlockReductions.cpp) and
// --remat-cpu-row-reductions: a host linalg.generic whose every output folds
// its accumulator once.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_DRIVER_GPUREDUCTIONS_H
#define REMAT_LIB_DRIVER_GPUREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace remat {

/// One output of a matched op: the op of the body that folds a value into
/// the output's accumulator, and that accumulator (a block argument).
struct GpuReduction {
  mlir::Operation *combiner;
  mlir::BlockArgument accumulator;
  /// The combiner's other operand (the value folded in).
  mlir::Value value;
  /// The combiner's identity (-0.0 for addf).
  mlir::FloatAttr identity;
};

/// The reductions of `op` when the GPU reduction passes can rewrite it:
/// static shapes, every output indexed by exactly the parallel loops (each
/// once), and a body of memory-effect-free ops and gather loads (reads of
/// buffers defined outside `op` that are none of its outputs) that folds
/// each accumulator once into its yielded value (Passes.td).
std::optional<llvm::SmallVector<GpuReduction>>
matchGpuReductions(mlir::linalg::GenericOp op);

} // namespace remat

#endif // REMAT_LIB_DRIVER_GPUREDUCTIONS_H
