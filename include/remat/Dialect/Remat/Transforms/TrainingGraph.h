//===- TrainingGraph.h - IR to scheduling graph and back --------*- C++ -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The bridge between a training step in IR and the MLIR-independent
/// scheduling model (remat/Scheduling/Graph.h), and the one rewriter that
/// materialises any schedule in IR.
///
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_TRANSFORMS_TRAININGGRAPH_H
#define REMAT_DIALECT_REMAT_TRANSFORMS_TRAININGGRAPH_H

#include "remat/Scheduling/Graph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace remat {

/// A training step seen as a scheduling graph: one node per top-level op of
/// the function body (in op order; `remat.keep` hints and the terminator are
/// not nodes). Node bytes are the bytes of all results; node cost is the
/// op's `RematCostOpInterface` compute cost (result elements without it).
/// Nodes are backward when the op has `#remat.phase<backward>`. Function
/// arguments are counted in `Graph::inputBytes`.
struct TrainingGraph {
  sched::Graph graph;
  /// The op of every node.
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, unsigned> nodeOf;

  /// Builds the graph of `func`. Emits a located error and returns failure
  /// for IR the schedulers cannot handle: several blocks, a value without a
  /// static size, a forward op that reads a backward value, a function that
  /// already contains remat.recompute regions.
  static mlir::FailureOr<TrainingGraph> build(mlir::func::FuncOp func);
};

/// True if `func` has a body holding backward ops: a training step with
/// something to schedule.
bool isTrainingStep(mlir::func::FuncOp func);

/// True if `func` has a body, carries the `remat.forward_only` unit attribute
/// (set by remat-import on graphs without a backward phase, such as the
/// Moccasin DAGs) and holds no backward op: a DAG whose every value may be
/// recomputed before any later consumer. Its graph is forward-only
/// (`sched::Graph::isForwardOnly`), and only the forward-only strategies
/// (and store-all) plan it.
bool isForwardOnlyGraph(mlir::func::FuncOp func);

/// Writes `text` to `path` ('-' is stdout); emits an error on `anchor` and
/// returns failure if the file cannot be written.
mlir::LogicalResult writeReportFile(mlir::Operation *anchor,
                                    llvm::StringRef path, llvm::StringRef text);

/// Moves the ops of `tg` into `order` (`order[i]` is the node placed at
/// position `i`, a topological order such as `sched::forwardFirstOrder`);
/// `remat.keep` hints follow the op they mark. `tg` is invalidated: rebuild
/// it from the function.
void reorderOps(TrainingGraph &tg, llvm::ArrayRef<unsigned> order);

/// Materialises `schedule` in the function of `tg`: the forward ops listed
/// before node k (a backward node, or any node of a forward-only graph) are
/// cloned, in order, into one `remat.recompute` op inserted right before that
/// node's op; every later use resolves to the most recent instance of a
/// value, exactly as `sched::simulate` assumes.
/// Returns the number of recomputed ops. `tg` is invalidated.
mlir::FailureOr<unsigned> applySchedule(TrainingGraph &tg,
                                        const sched::Schedule &schedule);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_TRAININGGRAPH_H
