//===- CpuParallel.h - OpenMP loops of the CPU passes -----------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The parallel-or-not rule of remat-cpu-parallel-loops (CpuParallel.cpp) and
// the helpers that turn an op's outer loop into an scf.parallel, shared with
// remat-cpu-vectorize (CpuVectorize.cpp), whose tiled vector loops take the
// same rule.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_DRIVER_CPUPARALLEL_H
#define REMAT_LIB_DRIVER_CPUPARALLEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace remat {

/// Returns true if `op` is worth running on several threads: static loop
/// ranges with at least `minWork` points in all (with `bodyWork`, points
/// times the work of one point) and a parallel first loop of at least two
/// iterations, and (maxUsefulThreads) a second thread that writes its own
/// cache lines.
bool shouldRunParallel(mlir::linalg::LinalgOp op, int64_t minWork,
                       bool bodyWork = false);

/// The number of threads the calls of `func` get: the result of a call of
/// `omp_get_max_threads()` at the start of its body, made (and the function
/// declared in its module) if there is none yet. Fails with an error when
/// the name already holds something else.
mlir::FailureOr<mlir::Value> getThreadCount(mlir::RewriterBase &rewriter,
                                            mlir::func::FuncOp func);

/// Builds before `op` (shouldRunParallel) the i1 that says whether its outer
/// loop runs on threads: `threads` (getThreadCount) above 1 and, for an op
/// with a reduction, at most the threads whose output ranges are a cache
/// line apart.
mlir::Value buildParallelTest(mlir::RewriterBase &rewriter,
                              mlir::linalg::LinalgOp op, mlir::Value threads);

/// Replaces the loop `loop` (no iteration arguments) by a one-dimensional
/// scf.parallel with the same bounds and body whose body computes the views
/// it uses itself (from the arena base at constant offsets), and returns it.
mlir::scf::ParallelOp makeParallelLoop(mlir::RewriterBase &rewriter,
                                       mlir::scf::ForOp loop);

} // namespace remat

#endif // REMAT_LIB_DRIVER_CPUPARALLEL_H
