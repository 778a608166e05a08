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
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace remat {

/// A training step seen as a scheduling graph: one node per schedulable unit
/// of the function body, in op order (`remat.keep` hints and the terminator
/// are not nodes). A unit is one top-level op (an op with scalar payload
/// regions such as `linalg.generic` included, its regions belong to it)
/// together with the ops that only produce its destination-passing inits
/// (`tensor.empty`, a `linalg.fill` whose one use is the init of a
/// `linalg.matmul`; see `getInPlaceResult`): bufferized, they are one buffer,
/// so they are kept, dropped and recomputed together. Node bytes are the
/// activation bytes (`getActivationBytes`) of the unit's last op's results
/// (its workspace the largest `getWorkspaceBytes` of the unit's ops);
/// node cost is the sum of the units' ops' `RematCostOpInterface` compute
/// costs (result elements without it). Nodes are backward when an op of the
/// unit has `#remat.phase<backward>` (or, when given, is in the inferred
/// backward set). Function arguments are counted in `Graph::inputBytes`.
struct TrainingGraph {
  sched::Graph graph;
  /// The last op of every node's unit (the one whose results other nodes
  /// read).
  llvm::SmallVector<mlir::Operation *> ops;
  /// The ops of every node's unit, in block order; the last is `ops[i]`.
  llvm::SmallVector<llvm::SmallVector<mlir::Operation *, 1>> units;
  /// The node of every op of every unit.
  llvm::DenseMap<mlir::Operation *, unsigned> nodeOf;

  /// Builds the graph of `func`. Emits a located error and returns failure
  /// for IR the schedulers cannot handle: several blocks, a value without a
  /// static size, a forward op that reads a backward value, a function that
  /// already contains remat.recompute regions, an op whose regions carry
  /// tensors. With `backwardOps`, those ops are the backward ones instead of
  /// the ops annotated `#remat.phase<backward>`.
  static mlir::FailureOr<TrainingGraph>
  build(mlir::func::FuncOp func,
        const llvm::DenseSet<mlir::Operation *> *backwardOps = nullptr);
};

/// The forward/backward split of a function without `#remat.phase`
/// annotations, inferred from its loss: the forward ops are the ops the loss
/// value and the `remat.state` results (the next values of the state, e.g.
/// batch-norm running statistics) depend on (through operands and values
/// their regions read) and the constants, the backward ops every other op of
/// the body. `lossResult` is the index of the returned loss; when negative,
/// the first returned value of rank-0 float type (`tensor<f32>`, `f32`). On
/// failure, `why` says what is missing.
struct PhaseSplit {
  /// The op that defines the loss (null when the split comes from gradient
  /// seeds and no returned scalar float is a forward value).
  mlir::Operation *lossOp = nullptr;
  unsigned lossResult = 0;
  /// The ops that seed the gradient, when the split comes from them.
  llvm::SmallVector<mlir::Operation *> seeds;
  llvm::DenseSet<mlir::Operation *> backward;
  unsigned numForward = 0;
};
mlir::FailureOr<PhaseSplit>
inferPhaseSplit(mlir::func::FuncOp func, int64_t lossResult, std::string &why);

/// The ops of `func` that seed its gradient: the top-level ops carrying the
/// `remat.grad_seed` unit attribute and, when `name` is not empty, those
/// whose location is (or fuses) the name location `loc("<name>")`. Empty
/// when there are none and `name` is empty. Emits a located error and fails
/// when `name` names no op or a seed is not a top-level op of a single-block
/// body.
mlir::FailureOr<llvm::SmallVector<mlir::Operation *>>
findGradSeeds(mlir::func::FuncOp func, llvm::StringRef name);

/// The split by dependences on the gradient seeds: an op is backward iff it
/// is a seed or reads (transitively, also from its regions) a value that
/// depends on one, or only produces a destination-passing init of a backward
/// op (`tensor.empty`, `linalg.fill`: part of its unit). Forward values computed after backward ops (state
/// updates, statistics) stay forward. The loss is the returned value
/// `lossResult` names (negative: the first returned forward scalar float),
/// if it is a forward value computed by the body.
PhaseSplit splitFromGradSeeds(mlir::func::FuncOp func,
                              llvm::ArrayRef<mlir::Operation *> seeds,
                              int64_t lossResult);

/// Checks the `#remat.phase` marks of `func` against `split`: every op
/// marked backward must be backward in `split` and every other op forward
/// (constants, which are resident whatever their mark, and init producers,
/// which belong to their consumer's unit, excepted). Emits one
/// located error per contradicting op (at most `maxErrors`, then a count) and
/// fails if there is one.
mlir::LogicalResult checkPhaseMarks(mlir::func::FuncOp func,
                                    const PhaseSplit &split,
                                    unsigned maxErrors = 10);

/// The split from the gradient seeds of `func` (`findGradSeeds` with
/// `name`) for the planning passes: std::nullopt when it has none. Fails,
/// after located errors, when `name` names no op, when the function is
/// `remat.forward_only`, or when its `#remat.phase` marks contradict the
/// dependences (`checkPhaseMarks`).
mlir::FailureOr<std::optional<PhaseSplit>>
getGradSeedSplit(mlir::func::FuncOp func, llvm::StringRef name,
                 int64_t lossResult);

/// Writes `#remat.phase<loss>` on `split.lossOp` and `#remat.phase<backward>`
/// on the backward ops of `split`, so later passes (the verifier) see the
/// same split.
void annotatePhases(const PhaseSplit &split);

/// Describes `split` for a remark: the loss result (or the seeds), the number
/// of forward and backward ops, the first backward op, and, for a split from
/// seeds, the forward ops placed after the first backward op.
std::string describePhaseSplit(mlir::func::FuncOp func,
                               const PhaseSplit &split);

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

/// Moves the units of `tg` into `order` (`order[i]` is the node placed at
/// position `i`, a topological order such as `sched::forwardFirstOrder`);
/// `remat.keep` hints follow the op they mark. `tg` is invalidated: rebuild
/// it from the function.
void reorderOps(TrainingGraph &tg, llvm::ArrayRef<unsigned> order);

/// Materialises `schedule` in the function of `tg`: the forward units listed
/// before node k (a backward node, or any node of a forward-only graph) are
/// cloned whole (regions included), in order, into one `remat.recompute` op
/// inserted right before the first op of that node's unit; every later use
/// resolves to the most recent instance of a value, exactly as
/// `sched::simulate` assumes. Returns the number of recomputed ops. The ops
/// of `tg` (`ops`, `units`) are invalidated; its scheduling graph `tg.graph`
/// is plain data, left unchanged, and still describes the plan.
mlir::FailureOr<unsigned> applySchedule(TrainingGraph &tg,
                                        const sched::Schedule &schedule);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_TRANSFORMS_TRAININGGRAPH_H
